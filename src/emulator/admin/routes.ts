// The admin API under /_emulator: onboarding (keys), completing transactions as a consumer or
// provider would, faults on demand, merchant switches, inspection of deliveries, and settlement
// (admin/settlements.ts) with the payout wallet (admin/wallet.ts).
import { isJsonObject, numberText } from '../../shared/json';
import { isPayinMethod, isPayoutMethod } from '../../shared/spec/methods';
import type { Router } from '../http/router';
import type { Reply, Request } from '../http/types';
import type { ApiDeps } from '../api/context';
import type { Notifier } from '../notify/notifier';
import type { FailMode, NotificationFaults } from '../notify/faults';
import { describeSchedule } from '../notify/schedule';
import type { DeliverySchedule, RateLimit } from '../options';
import type { DeliveryRepo } from '../store/deliveries';
import { adminBody, adminError, adminReply } from './json-body';
import { registerKey } from './keys';
import { registerSettlementAdmin, type SettlementAdminDeps } from './settlements';
import { registerWalletAdmin } from './wallet';
import type { PayoutWallet } from '../domain/wallet';

export const ADMIN_PREFIX = '/_emulator';

export interface AdminDeps extends ApiDeps, SettlementAdminDeps {
  wallet: PayoutWallet;
  notifier: Notifier;
  deliveries: DeliveryRepo;
  schedule: DeliverySchedule;
  defaultRateLimit: RateLimit;
  urls: { baseUrl: string; adminUrl: string; hostedUrl: string };
}

/** Admin numbers are plain settings, not money: reading them as floats is fine. */
const numeric = (v: unknown): number | undefined => (numberText(v) === undefined ? undefined : Number(numberText(v)));

const int = (v: unknown, min: number, max: number): number | undefined => {
  const n = numeric(v);
  return n !== undefined && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
};

/** Applies a partial faults object; returns an error message for the first bad field. */
function patchNotificationFaults(current: NotificationFaults, patch: Record<string, unknown>): NotificationFaults | string {
  const next = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    switch (k) {
      case 'delay_ms':
      case 'reorder_window_ms':
        if (int(v, 0, 600_000) === undefined) return `${k} must be an integer 0-600000`;
        next[k] = int(v, 0, 600_000) as number;
        break;
      case 'duplicate':
      case 'fail_next':
        if (int(v, 0, 100) === undefined) return `${k} must be an integer 0-100`;
        next[k] = int(v, 0, 100) as number;
        break;
      case 'reorder':
        if (typeof v !== 'boolean') return 'reorder must be a boolean';
        next.reorder = v;
        break;
      case 'fail_mode':
        if (v !== 'drop' && v !== 'abort' && v !== 'wrong_status') return 'fail_mode must be drop, abort or wrong_status';
        next.fail_mode = v as FailMode;
        break;
      default:
        return `unknown notification fault ${k}`;
    }
  }
  return next;
}

function faultsView(d: AdminDeps): Record<string, unknown> {
  return {
    notifications: d.faults.notifications,
    api: d.faults.api,
    rate_limit: { burst: d.limiter.limit.burst, refill_per_second: d.limiter.limit.refillPerSecond },
  };
}

function setFaults(d: AdminDeps) {
  return (req: Request): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const { notifications, api, rate_limit, ...rest } = parsed.body;
    if (Object.keys(rest).length > 0) return adminError(400, `unknown keys: ${Object.keys(rest).join(', ')} (use notifications, api, rate_limit)`);
    if (notifications !== undefined) {
      if (!isJsonObject(notifications)) return adminError(400, 'notifications must be an object');
      const next = patchNotificationFaults(d.faults.notifications, notifications);
      if (typeof next === 'string') return adminError(400, next);
      d.faults.notifications = next;
    }
    if (api !== undefined) {
      if (!isJsonObject(api)) return adminError(400, 'api must be an object');
      for (const [k, v] of Object.entries(api)) {
        if (k !== 'create_errors' && k !== 'force_rate_limit') return adminError(400, `unknown api fault ${k}`);
        if (int(v, 0, 1000) === undefined) return adminError(400, `${k} must be an integer 0-1000`);
        d.faults.api[k] = int(v, 0, 1000) as number;
      }
    }
    if (rate_limit !== undefined) {
      if (!isJsonObject(rate_limit)) return adminError(400, 'rate_limit must be an object');
      const burst = rate_limit.burst === undefined ? d.limiter.limit.burst : int(rate_limit.burst, 1, 100_000);
      const r = numeric(rate_limit.refill_per_second);
      const refill = rate_limit.refill_per_second === undefined ? d.limiter.limit.refillPerSecond : r !== undefined && r >= 0 && r <= 100_000 ? r : undefined;
      if (burst === undefined || refill === undefined) return adminError(400, 'rate_limit needs burst (integer >= 1) and refill_per_second (number >= 0)');
      d.limiter.configure({ burst, refillPerSecond: refill });
    }
    return adminReply(200, faultsView(d));
  };
}

function completePayin(d: AdminDeps) {
  return (req: Request, p: Record<string, string>): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const raw = parsed.body.status_code;
    const code = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{3}$/.test(raw) ? Number(raw) : NaN;
    const reason = parsed.body.reason_code;
    if (reason !== undefined && reason !== null && (typeof reason !== 'string' || !/^[A-Z0-9_]{1,64}$/.test(reason))) return adminError(400, 'reason_code must be an upper-case code');
    const r = d.payins.complete(p.id as string, code, reason === undefined ? undefined : (reason as string | null));
    if (r.ok) return adminReply(200, { status: 'ok', payin: d.payins.view(r.record) });
    if (r.why === 'unknown') return adminError(404, 'no pay-in with this payin_id');
    if (r.why === 'final') return adminError(409, 'the pay-in is already final (or already at that pending status)');
    return adminError(400, 'status_code must be a 3-digit pay-in status code other than 100');
  };
}

function completePayout(d: AdminDeps) {
  return (req: Request, p: Record<string, string>): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const code = typeof parsed.body.status_code === 'string' ? parsed.body.status_code.toUpperCase() : '';
    const r = d.payouts.complete(p.id as string, code);
    if (r.ok) return adminReply(200, { status: 'ok', payout: d.payouts.view(r.record) });
    if (r.why === 'unknown') return adminError(404, 'no payout with this payout_id');
    if (r.why === 'final') return adminError(409, 'the payout is already final (or already at that pending status)');
    return adminError(400, 'status_code must be P101, P200 or a C-code such as C405');
  };
}

function deliveryView(d: AdminDeps, id: number): Record<string, unknown> | undefined {
  const rec = d.deliveries.byId(id);
  if (!rec) return undefined;
  return { ...rec, body: JSON.parse(rec.body) as unknown, attempt_log: d.deliveries.attempts(id) };
}

function setMerchant(d: AdminDeps) {
  return (req: Request): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const { active, disabled_methods } = parsed.body;
    if (active !== undefined && typeof active !== 'boolean') return adminError(400, 'active must be a boolean');
    if (disabled_methods !== undefined && (!Array.isArray(disabled_methods) || !disabled_methods.every((m) => isPayinMethod(m) || isPayoutMethod(m)))) {
      return adminError(400, 'disabled_methods must be a list of pay-in or payout methods');
    }
    const settings = d.merchant.updateSettings({
      ...(active !== undefined ? { active } : {}),
      ...(disabled_methods !== undefined ? { disabled_methods: disabled_methods as string[] } : {}),
    });
    return adminReply(200, { ...d.merchant.credentials, settings });
  };
}

export function registerAdmin(router: Router, d: AdminDeps): void {
  const A = ADMIN_PREFIX;
  router
    .add('GET', A, () =>
      adminReply(200, {
        base_url: d.urls.baseUrl,
        admin_url: d.urls.adminUrl,
        hosted_url: d.urls.hostedUrl,
        ...d.merchant.credentials,
        settings: d.merchant.settings,
        delivery_schedule: { ...d.schedule, attempts: describeSchedule(d.schedule) },
        ...faultsView(d),
      }),
    )
    .add('POST', `${A}/keys`, registerKey(d.keys, d.merchant, d.clock))
    .add('GET', `${A}/keys`, () => adminReply(200, { keys: d.keys.list() }))
    .add('GET', `${A}/payins`, () => adminReply(200, { count: d.payinRepo.count(), payins: d.payinRepo.recent(100).map((p) => ({ ...d.payins.view(p), kind: p.kind, card: p.card, scenario: p.scenario })) }))
    .add('GET', `${A}/payins/:id`, (_req, p) => {
      const rec = d.payinRepo.byId(p.id as string);
      return rec ? adminReply(200, { ...d.payins.view(rec), kind: rec.kind, email: rec.email, country: rec.country, card: rec.card, token: rec.token, scenario: rec.scenario, urls: rec.urls }) : adminError(404, 'no pay-in with this payin_id');
    })
    .add('POST', `${A}/payins/:id/complete`, completePayin(d))
    .add('GET', `${A}/payouts/:id`, (_req, p) => {
      const rec = d.payoutRepo.byId(p.id as string);
      return rec ? adminReply(200, { ...d.payouts.view(rec), destination: rec.destination, scenario: rec.scenario, notification_url: rec.notification_url }) : adminError(404, 'no payout with this payout_id');
    })
    .add('POST', `${A}/payouts/:id/complete`, completePayout(d))
    .add('GET', `${A}/tokens/:token`, (_req, p) => {
      const t = d.tokens.find(p.token as string);
      return t ? adminReply(200, t) : adminError(404, 'no such token');
    })
    .add('POST', `${A}/tokens/:token/revoke`, (_req, p) => (d.tokens.revoke(p.token as string) ? adminReply(200, { status: 'revoked' }) : adminError(404, 'no such token')))
    .add('GET', `${A}/deliveries`, (req) => {
      const subject = req.query.get('subject_id') ?? undefined;
      const event = req.query.get('event') ?? undefined;
      const list = d.deliveries.list({ ...(subject ? { subject_id: subject } : {}), ...(event ? { event } : {}) }, 200);
      return adminReply(200, { deliveries: list.map((x) => deliveryView(d, x.id)) });
    })
    .add('GET', `${A}/deliveries/:id`, (_req, p) => {
      const v = deliveryView(d, Number(p.id));
      return v ? adminReply(200, v) : adminError(404, 'no such delivery');
    })
    .add('POST', `${A}/deliveries/:id/redeliver`, (_req, p) => {
      const id = d.notifier.redeliver(Number(p.id));
      return id === undefined ? adminError(404, 'no such delivery') : adminReply(200, { status: 'scheduled', delivery_id: id });
    })
    .add('GET', `${A}/faults`, () => adminReply(200, faultsView(d)))
    .add('PUT', `${A}/faults`, setFaults(d))
    .add('POST', `${A}/faults`, setFaults(d))
    .add('DELETE', `${A}/faults`, () => {
      d.faults.reset();
      d.limiter.configure(d.defaultRateLimit);
      return adminReply(200, faultsView(d));
    })
    .add('GET', `${A}/merchant`, () => adminReply(200, { ...d.merchant.credentials, settings: d.merchant.settings }))
    .add('PUT', `${A}/merchant`, setMerchant(d))
    .add('POST', `${A}/merchant`, setMerchant(d));
  registerSettlementAdmin(router, A, d);
  registerWalletAdmin(router, A, d.wallet);
}

