/** Every migration in order. A new schema version is a new module appended here, never an edit of an old one. */
import { initial } from './001-initial';
import type { Migration } from './types';

export const MIGRATIONS: readonly Migration[] = [initial];
export type { Migration } from './types';
