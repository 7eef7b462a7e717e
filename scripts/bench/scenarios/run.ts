/** What every scenario is given: the run's scratch directory and the seeded databases in it. */
import type { SeededDatabase } from '../seed.js';

export interface BenchRun {
  /** A directory of the run's own, removed after it. */
  directory: string;
  /** 10,000 users, in `users-10k.db`. */
  small: SeededDatabase;
  /** LARGE_USERS (100,000 unless the smoke test asks fewer), in `users-100k.db`. */
  large: SeededDatabase;
}
