/** The OmniMessage protocol: types, builders (the only constructors), guards, token helpers, aggregation, markers. */
export * from './types';
export * from './builders';
export * from './guards';
export * from './tokens';
export * from './markers';
export * from './aggregator';
