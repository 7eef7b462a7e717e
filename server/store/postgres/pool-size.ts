/**
 * Connections per instance's pool on PostgreSQL by default (DATABASE_POOL_SIZE); a request
 * holds one only for its statements. In a module of its own so that the settings can name
 * it without loading pg. The bench's figures for other sizes are in docs/operations.md.
 */
export const DEFAULT_POOL_SIZE = 10;
