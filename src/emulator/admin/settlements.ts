// Admin routes of settlement: the settlements made (and what the knobs did to them), a run now,
// the settlement report (CSV), the demo bank statement (camt.053), the knobs and the fees.
import { isJsonObject } from '../../shared/json';
import { isPayinMethod, type PayinMethod } from '../../shared/spec/methods';
import type { MerchantAccount } from '../domain/merchant';
import { patchSettlementFaults, type SettlementFaultState } from '../domain/settlement/faults';
import type { FeeTable } from '../domain/settlement/fee-table';
import { checkFeeRate, type FeeRate } from '../domain/settlement/fees';
import { describePeriod, utcDate } from '../domain/settlement/periods';
import type { SettlementService } from '../domain/settlement/service';
import type { Router } from '../http/router';
import type { Reply, Request } from '../http/types';
import { bankStatement } from '../reports/bank-statement';
import { settlementReportCsv } from '../reports/settlement-csv';
import type { Clock } from '../runtime';
import type { BankRepo } from '../store/bank';
import type { SettlementRepo } from '../store/settlements';
import type { WalletRepo } from '../store/wallet';
import { adminBody, adminError, adminReply } from './json-body';
import { rangeQuery } from './range-query';

export interface SettlementAdminDeps {
  clock: Clock;
  merchant: MerchantAccount;
  settlements: SettlementService;
  settlementRepo: SettlementRepo;
  bank: BankRepo;
  walletRepo: WalletRepo;
  fees: FeeTable;
  settlementFaults: SettlementFaultState;
}

const file = (body: string, contentType: string, name: string): Reply => ({ status: 200, body, contentType, headers: { 'content-disposition': `attachment; filename="${name}"` } });
const csvFile = (body: string, name: string): Reply => file(body, 'text/csv; charset=utf-8', name);

function report(d: SettlementAdminDeps, settlementId: string | undefined, req: Request): Reply {
  if (settlementId !== undefined) {
    if (d.settlementRepo.byId(settlementId) === undefined) return adminError(404, 'no settlement with this settlement_id');
    return csvFile(settlementReportCsv(d.settlementRepo.lines({ settlementId }), []), `settlement-${settlementId}.csv`);
  }
  const range = rangeQuery(req);
  if (typeof range === 'string') return adminError(400, range);
  const name = `settlement-report-${range.from ?? 'start'}-${range.to ?? 'now'}${range.currency ? `-${range.currency}` : ''}.csv`;
  return csvFile(settlementReportCsv(d.settlementRepo.lines(range), d.walletRepo.movements(range)), name);
}

function statement(d: SettlementAdminDeps, req: Request): Reply {
  const range = rangeQuery(req);
  if (typeof range === 'string') return adminError(400, range);
  const xml = bankStatement(d.bank, `Merchant ${d.merchant.id}`, range, utcDate(d.clock.now()));
  if (xml === undefined) return adminError(404, range.currency ? `no bank account in ${range.currency}: nothing was settled in it yet` : 'no bank account yet: nothing was settled');
  return file(xml, 'application/xml; charset=utf-8', `bank-statement-${range.from ?? 'start'}-${range.to ?? 'now'}${range.currency ? `-${range.currency}` : ''}.xml`);
}

function run(d: SettlementAdminDeps) {
  return (req: Request): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const { mode = 'now', ...rest } = parsed.body;
    if (Object.keys(rest).length > 0) return adminError(400, `unknown keys: ${Object.keys(rest).join(', ')} (use mode)`);
    if (mode !== 'now' && mode !== 'closed') return adminError(400, 'mode must be now (settle up to now) or closed (only periods that have ended)');
    const made = d.settlements.run(mode);
    return adminReply(200, { settlements: made.map((s) => d.settlements.byId(s.settlement_id)) });
  };
}

const faultsView = (d: SettlementAdminDeps): Record<string, unknown> => ({ armed: d.settlementFaults.armed, applied: d.settlements.appliedFaults() });

function setFaults(d: SettlementAdminDeps) {
  return (req: Request): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const next = patchSettlementFaults(d.settlementFaults.armed, parsed.body);
    if (typeof next === 'string') return adminError(400, next);
    d.settlementFaults.set(next);
    return adminReply(200, faultsView(d));
  };
}

function setFees(d: SettlementAdminDeps) {
  return (req: Request): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const patch: Partial<Record<PayinMethod, FeeRate>> = {};
    for (const [method, given] of Object.entries(parsed.body)) {
      if (!isPayinMethod(method)) return adminError(400, `${method} is not a pay-in method`);
      if (!isJsonObject(given)) return adminError(400, `${method} must be an object {percent, fixed}`);
      const current = d.fees.rateOf(method);
      const rate = checkFeeRate(given.percent ?? current.percent, given.fixed ?? current.fixed);
      if (typeof rate === 'string') return adminError(400, `${method}: ${rate}`);
      patch[method] = rate;
    }
    return adminReply(200, { fees: d.fees.update(patch) });
  };
}

export function registerSettlementAdmin(router: Router, prefix: string, d: SettlementAdminDeps): void {
  router
    .add('GET', `${prefix}/settlements`, (req) => {
      const range = rangeQuery(req);
      if (typeof range === 'string') return adminError(400, range);
      const settlements = d.settlements.list(range);
      return adminReply(200, { period: describePeriod(d.settlements.periodMs), count: settlements.length, settlements });
    })
    .add('POST', `${prefix}/settlements/run`, run(d))
    .add('GET', `${prefix}/settlements/:id`, (_req, p) => {
      const view = d.settlements.byId(p.id as string);
      return view ? adminReply(200, view) : adminError(404, 'no settlement with this settlement_id');
    })
    .add('GET', `${prefix}/settlements/:id/report.csv`, (req, p) => report(d, p.id as string, req))
    .add('GET', `${prefix}/reports/settlement.csv`, (req) => report(d, req.query.get('settlement_id') ?? undefined, req))
    .add('GET', `${prefix}/reports/bank-statement.xml`, (req) => statement(d, req))
    .add('GET', `${prefix}/settlement-faults`, () => adminReply(200, faultsView(d)))
    .add('PUT', `${prefix}/settlement-faults`, setFaults(d))
    .add('POST', `${prefix}/settlement-faults`, setFaults(d))
    .add('DELETE', `${prefix}/settlement-faults`, () => {
      d.settlementFaults.reset();
      return adminReply(200, faultsView(d));
    })
    .add('GET', `${prefix}/settlement-fees`, () => adminReply(200, { fees: d.fees.schedule }))
    .add('PUT', `${prefix}/settlement-fees`, setFees(d))
    .add('POST', `${prefix}/settlement-fees`, setFees(d))
    .add('DELETE', `${prefix}/settlement-fees`, () => adminReply(200, { fees: d.fees.reset() }));
}
