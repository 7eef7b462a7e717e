/**
 * Whether the service should receive traffic: not while it starts (the
 * database migrating) nor once it is told to stop (draining before it closes).
 * `GET /readyz` answers from it; `GET /healthz` (liveness) does not.
 */
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
