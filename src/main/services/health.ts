// Whether this instance should be sent requests (docs/team.md, "Health, metrics and logs"): what a
// load balancer asks `GET /readyz` on the app address and on the notification address. Ready
// when the ledger answers, its migrations are current for this build (or newer and declared
// compatible with it), this instance holds its presence lock (another would otherwise take it for
// dead and take over what it sends), and it neither stops nor drains. The answer says which check
// failed by a fixed reason and sentence, nothing of the ledger or the people.
import type { Cluster } from '../ledger/cluster';
import { migrationsAfter, newestRecordedMigration, type Ledger } from '../ledger/connection';
import { standingOf } from '../ledger/engine/history';

export type NotReadyReason = 'stopping' | 'draining' | 'database' | 'migrations' | 'presence';

export type Readiness = { ready: true } | { ready: false; reason: NotReadyReason; message: string };

const MESSAGES: Record<NotReadyReason, string> = {
  stopping: 'This instance is stopping.',
  draining: 'This instance drains: a newer Paydesk migrated the ledger past it.',
  database: 'The ledger does not answer.',
  migrations: "The ledger's migrations are not current for this instance.",
  presence: 'This instance does not hold its presence lock on the ledger.',
};

/** How long the ledger may take to answer the checks before it counts as not answering. */
export const READINESS_TIMEOUT_MS = 2_000;

export interface HealthDeps {
  ledger: Ledger;
  cluster: Pick<Cluster, 'holds'>;
  instanceId: string;
  /** The newest migration this build applies on the ledger's engine. */
  newestMigration: number;
  /** Why this instance drains, or null (scale-out/drain.ts). */
  draining: () => string | null;
  timeoutMs?: number;
}

export interface HealthProbe {
  ready(): Promise<Readiness>;
}

export class Health implements HealthProbe {
  private stoppingSince: number | null = null;

  constructor(private readonly deps: HealthDeps) {}

  /** From now on /readyz answers 503: the balancer stops sending requests before the server stops taking them. */
  stopping(): void {
    this.stoppingSince ??= Date.now();
  }

  async ready(): Promise<Readiness> {
    const not = (reason: NotReadyReason): Readiness => ({ ready: false, reason, message: MESSAGES[reason] });
    if (this.stoppingSince !== null) return not('stopping');
    if (this.deps.draining() !== null) return not('draining');
    const checked = await this.ledgerChecks().catch(() => 'database' as const);
    if (checked !== null) return not(checked);
    if (!this.deps.cluster.holds(this.deps.instanceId)) return not('presence');
    return { ready: true };
  }

  /** The ledger answers and its schema is one this build runs on: null, or what failed. */
  private async ledgerChecks(): Promise<NotReadyReason | null> {
    const { ledger, newestMigration } = this.deps;
    const timeoutMs = this.deps.timeoutMs ?? READINESS_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'database'>((resolve) => {
      timer = setTimeout(() => resolve('database'), timeoutMs);
      timer.unref();
    });
    const checks = (async (): Promise<NotReadyReason | null> => {
      if ((await newestRecordedMigration(ledger)) < newestMigration) return 'migrations';
      return standingOf(await migrationsAfter(ledger, newestMigration), newestMigration).state === 'incompatible' ? 'migrations' : null;
    })();
    try {
      return await Promise.race([checks, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The paths both servers answer without a session (the app's and the notification listener). */
export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

/**
 * What GET /healthz (the process serves) and GET /readyz answer: status and JSON body, with the
 * reason when not ready and nothing else; null for another path, or /readyz where no probe is given.
 */
export async function healthAnswer(pathname: string, probe: HealthProbe | undefined): Promise<{ status: number; body: Record<string, string> } | null> {
  if (pathname === '/healthz') return { status: 200, body: { status: 'ok' } };
  if (pathname !== '/readyz' || !probe) return null;
  const readiness = await probe.ready();
  return readiness.ready ? { status: 200, body: { status: 'ready' } } : { status: 503, body: { status: 'unavailable', reason: readiness.reason, message: readiness.message } };
}
