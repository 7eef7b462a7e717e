/**
 * Whether the service should receive traffic: not while it starts (the
 * database migrating), nor once it is told to stop (draining before it
 * closes), nor while its database does not answer. `GET /readyz` answers from
 * here, while the service starts (http/starting.ts) and once it runs (the
 * getReadiness handler); `GET /healthz` (liveness) does not.
 */
import { ServiceError } from './service-errors.js';

export type Phase = 'starting' | 'ready' | 'stopping';

const REASONS: Record<Exclude<Phase, 'ready'>, string> = {
  starting: 'starting (migrating the database)',
  stopping: 'shutting down',
};

export class Readiness {
  #phase: Phase;

  constructor(phase: Phase = 'starting') {
    this.#phase = phase;
  }

  get phase(): Phase {
    return this.#phase;
  }

  ready(): void {
    if (this.#phase === 'starting') this.#phase = 'ready';
  }

  /** From now on, never ready again. */
  stopping(): void {
    this.#phase = 'stopping';
  }

  /** Why it is not ready, or undefined when it is. */
  get notReadyBecause(): string | undefined {
    return this.#phase === 'ready' ? undefined : REASONS[this.#phase];
  }
}

/** The answer of a readiness probe that fails: 503 not_ready, with the reason. */
export const notReady = (reason: string) => new ServiceError(503, 'not_ready', `Not ready: ${reason}`);
