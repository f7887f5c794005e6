/** Composition: an Agent built from its files (state layer + model + environment + engine). */
export * from './load-agent';
