/** A schema migration: a version (1, 2, 3… with no gaps), a name for humans, and the SQL that moves the schema up one step. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
