/**
 * ECS task scale-in protection for the Fargate consumer, through the container agent's
 * endpoint `$ECS_AGENT_URI/task-protection/v1/state` (PUT `{"ProtectionEnabled": bool,
 * "ExpiresInMinutes": n}`; the answer is `{"protection": {...}}`, `{"failure": {...}}` or
 * `{"error": {...}}`, as amazon-ecs-agent's ecs-agent/tmds/handlers/taskprotection/v1 writes
 * them). While at least one item runs the task is protected, so scaling in on queue depth
 * never stops a busy task; the protection is renewed before it expires and dropped when
 * the task goes idle. Outside ECS (no ECS_AGENT_URI) it does nothing.
 */

export interface TaskProtectionOptions {
  /** `ECS_AGENT_URI`; undefined outside ECS. */
  agentUri: string | undefined;
  /** How long one protection lasts (renewed at half of it while busy). Default 60. */
  expiresInMinutes?: number;
  fetch?: typeof fetch;
  log?: (message: string, detail: Record<string, unknown>) => void;
}

/** Reference-counted protection: the first busy slot protects, the last idle one releases. */
export class TaskProtection {
  private busy = 0;
  private renewTimer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly minutes: number;
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: TaskProtectionOptions) {
    this.minutes = Math.min(2880, Math.max(1, options.expiresInMinutes ?? 60));
    this.doFetch = options.fetch ?? fetch;
  }

  /** Marks one more item as running (protects the task when it was idle). */
  acquire(): Promise<void> {
    this.busy += 1;
    if (this.busy === 1) {
      this.renewTimer = setInterval(() => void this.enqueue(true), (this.minutes * 60_000) / 2);
      this.renewTimer.unref();
      return this.enqueue(true);
    }
    return this.chain;
  }

  /** Marks one item as done (unprotects the task when none is left). */
  release(): Promise<void> {
    this.busy = Math.max(0, this.busy - 1);
    if (this.busy > 0) return this.chain;
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
    return this.enqueue(false);
  }

  /** Runs `work` with the task protected. */
  async around<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      await this.release();
    }
  }

  /** Requests are serialised so the agent sees them in order (protect, renew…, release). */
  private enqueue(enabled: boolean): Promise<void> {
    this.chain = this.chain.then(() => this.put(enabled));
    return this.chain;
  }

  private async put(enabled: boolean): Promise<void> {
    if (!this.options.agentUri) return;
    const body = enabled ? { ProtectionEnabled: true, ExpiresInMinutes: this.minutes } : { ProtectionEnabled: false };
    try {
      const response = await this.doFetch(`${this.options.agentUri}/task-protection/v1/state`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json().catch(() => ({}))) as {
        protection?: unknown;
        failure?: { Reason?: string };
        error?: { Code?: string; Message?: string };
      };
      if (!response.ok || answer.failure || answer.error) {
        // Not fatal: an unprotected task only risks a redelivery of its item.
        this.options.log?.('task scale-in protection not updated', { enabled, status: response.status, failure: answer.failure, error: answer.error });
      }
    } catch (cause) {
      this.options.log?.('task scale-in protection endpoint unreachable', { enabled, cause: String(cause) });
    }
  }
}
