/** Where a server process is in its life: only a `ready` one serves the API. */
export type LifecycleState = 'starting' | 'ready' | 'draining';

export class Lifecycle {
  private current: LifecycleState;

  constructor(initial: LifecycleState = 'starting') {
    this.current = initial;
  }

  get state(): LifecycleState {
    return this.current;
  }

  get ready(): boolean {
    return this.current === 'ready';
  }

  /** The indexes are built: requests are served. */
  markReady(): void {
    if (this.current === 'starting') this.current = 'ready';
  }

  /** SIGTERM (or close): no new work is taken; in-flight requests finish. */
  markDraining(): void {
    this.current = 'draining';
  }
}
