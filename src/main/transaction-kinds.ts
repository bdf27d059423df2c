// What a pay-in and a payout differ in, for main: one entry per kind of transaction, read by the
// services, the gateway's attempt runner and the ledger's repositories, so none of them branches
// on the kind itself (the renderer's counterpart is features/transactions/list-domains.ts). A kind
// added to TRANSACTION_SUBJECTS without its entry fails the typecheck.
//
// It imports only shared/ at run time (the ledger and gateway types are types), so every layer of
// main may read it without a cycle.
import { describePayinStatus, describePayoutStatus, type PayinStatusInfo, type PayoutStatusInfo, type TransactionSubject, type UnknownCodeInfo } from '../shared/spec/codes';
import { PayinNotificationSchema, PayoutNotificationSchema, type PayinStatusRequest, type PayoutStatusRequest } from '../shared/spec/schemas';
import type { CreateTransport } from './gateway/client';
import type { Responses } from './gateway/endpoints';
import type { CallResult } from './gateway/result';
import type { ApprovalRecord } from './ledger/repositories/approvals';
import type { AttemptKind } from './ledger/repositories/attempts';
import type { Repositories } from './ledger/repositories/index';
import type { StoredNotification } from './ledger/repositories/notifications';
import type { PayinRecord, PayinsRepository } from './ledger/repositories/payins';
import type { PayoutRecord, PayoutsRepository } from './ledger/repositories/payouts';
import type { StatusRead } from './ledger/repositories/status-reads';
import type { CardToken } from './ledger/repositories/tokens';

export type TransactionKind = TransactionSubject;

/** The gateway's two status reads (spec 4: payment/get-status, payouts/get-status). */
export type StatusTransport = Pick<CreateTransport, 'payinStatus' | 'payoutStatus'>;

/** A status read's answer, for a pay-in or a payout. */
export type StatusReadAnswer = CallResult<Responses['payin_status']> | CallResult<Responses['payout_status']>;

/** Where a kind's rows live in the ledger: its table, the columns of its two references, its cards. */
export interface LedgerShape {
  table: 'payins' | 'payouts';
  /** The merchant's reference of the request, unique per profile. */
  reference: 'request_id' | 'merchant_reference';
  /** The gateway's id, set once by its answer. */
  gatewayId: 'payin_id' | 'payout_id';
  cards: { table: 'payin_cards' | 'payout_cards'; column: 'payin_row_id' | 'payout_row_id' };
}

/** A row of either kind, as what the ledger links to it is looked up by. */
export interface LinkedRow {
  id: number;
  profileId: string;
  reference: string;
  gatewayId: string | null;
}

interface KindEntry<Store, Row> {
  /** "pay-in", "payout": in what a person reads. */
  noun: string;
  ledger: LedgerShape;
  /** The spec's field naming the merchant's reference of a request (the create's, a status read's, an answer's). */
  referenceField: 'request_id' | 'merchantReference';
  /** The spec's field naming the gateway's id. */
  gatewayIdField: 'payin_id' | 'payout_id';
  /**
   * Whether the spec reads a status by the merchant's reference (request_id), so that any 400 to
   * such a read means "no such transaction"; a payout's read by merchantReference is an extension
   * another gateway may lack (docs/emulator.md), which only a 400 naming that field answers.
   */
  referenceReadInSpec: boolean;
  /** The fields a 400's details name when a read by the gateway's id finds nothing. */
  notFoundById: readonly string[];
  /** The same, for a read by the merchant's reference. */
  notFoundByReference: readonly string[];
  /** A notification's or status read's links to a row of this kind (the other kind's null). */
  rowLinks(rowId: number | null): { payinRowId: number | null; payoutRowId: number | null };
  /** The body of its notification (spec 6). */
  notificationBody: typeof PayinNotificationSchema | typeof PayoutNotificationSchema;
  /**
   * Whether a notification that found its row by the gateway's id must name the row's reference
   * too, or be a contradiction (a pay-in's request_id; a payout's merchantReference is not compared).
   */
  notifiedReferenceCompared: boolean;
  /** A status code read in this kind's table of the catalogue (spec 3.1, 3.2). */
  describeStatus(code: unknown): PayinStatusInfo | PayoutStatusInfo | UnknownCodeInfo;
  /** The kind's repository. */
  store(repos: Pick<Repositories, 'payins' | 'payouts'>): Store;
  /** The notifications linked to a row, oldest first. */
  notifications(repos: Pick<Repositories, 'notifications'>, rowId: number): Promise<StoredNotification[]>;
  /** The status reads of a row, oldest first. */
  statusReads(repos: Pick<Repositories, 'statusReads'>, rowId: number): Promise<StatusRead[]>;
  /** The approvals that held it back: a payout's own and its batch's (a pay-in is never held back). */
  approvals(repos: Pick<Repositories, 'approvals' | 'batches'>, row: LinkedRow): Promise<ApprovalRecord[]>;
  /** The cards it vaulted: a tokenization pay-in's (a payout vaults none). */
  vaultedTokens(repos: Pick<Repositories, 'tokens'>, row: LinkedRow): Promise<CardToken[]>;
  /** Sends a status read (its body in the spec's field names). */
  readStatus(transport: StatusTransport, request: object): Promise<StatusReadAnswer>;
  /** The row's two references. */
  references(row: Row): { reference: string; gatewayId: string | null };
}

export interface TransactionKinds {
  payin: KindEntry<PayinsRepository, PayinRecord>;
  payout: KindEntry<PayoutsRepository, PayoutRecord>;
}

/** One kind's entry, whichever it is. */
export type TransactionKindEntry = TransactionKinds[TransactionKind];

const PAYIN_IDS = ['payin_id', 'request_id'] as const;

export const TRANSACTION_KINDS: TransactionKinds = {
  payin: {
    noun: 'pay-in',
    ledger: { table: 'payins', reference: 'request_id', gatewayId: 'payin_id', cards: { table: 'payin_cards', column: 'payin_row_id' } },
    referenceField: 'request_id',
    gatewayIdField: 'payin_id',
    referenceReadInSpec: true,
    notFoundById: PAYIN_IDS,
    notFoundByReference: PAYIN_IDS,
    rowLinks: (rowId) => ({ payinRowId: rowId, payoutRowId: null }),
    notificationBody: PayinNotificationSchema,
    notifiedReferenceCompared: true,
    describeStatus: describePayinStatus,
    store: (repos) => repos.payins,
    notifications: (repos, rowId) => repos.notifications.forPayin(rowId),
    statusReads: (repos, rowId) => repos.statusReads.forPayin(rowId),
    approvals: async () => [],
    vaultedTokens: async (repos, row) => (await repos.tokens.list(row.profileId)).filter((t) => (row.gatewayId !== null && t.payinId === row.gatewayId) || t.requestId === row.reference),
    readStatus: (transport, request) => transport.payinStatus(request as PayinStatusRequest),
    references: (row) => ({ reference: row.requestId, gatewayId: row.payinId }),
  },
  payout: {
    noun: 'payout',
    ledger: { table: 'payouts', reference: 'merchant_reference', gatewayId: 'payout_id', cards: { table: 'payout_cards', column: 'payout_row_id' } },
    referenceField: 'merchantReference',
    gatewayIdField: 'payout_id',
    referenceReadInSpec: false,
    notFoundById: ['payout_id'],
    // A gateway without the lookup by merchantReference answers 400 too, naming payout_id.
    notFoundByReference: ['merchantReference'],
    rowLinks: (rowId) => ({ payinRowId: null, payoutRowId: rowId }),
    notificationBody: PayoutNotificationSchema,
    notifiedReferenceCompared: false,
    describeStatus: describePayoutStatus,
    store: (repos) => repos.payouts,
    notifications: (repos, rowId) => repos.notifications.forPayout(rowId),
    statusReads: (repos, rowId) => repos.statusReads.forPayout(rowId),
    // A payout of a batch was approved with its batch, as a whole.
    approvals: async (repos, row) => {
      const batchId = await repos.batches.batchOfPayoutRow(row.id);
      const own = await repos.approvals.forSubject('payout', row.profileId, row.reference);
      return batchId === undefined ? own : [...own, ...(await repos.approvals.forSubject('batch', row.profileId, String(batchId)))];
    },
    vaultedTokens: async () => [],
    readStatus: (transport, request) => transport.payoutStatus(request as PayoutStatusRequest),
    references: (row) => ({ reference: row.merchantReference, gatewayId: row.payoutId }),
  },
};

/** The kind of transaction an attempt creates. */
export const KIND_OF_ATTEMPT = {
  payin: 'payin',
  tokenization: 'payin',
  token_charge: 'payin',
  payout: 'payout',
} as const satisfies Record<AttemptKind, TransactionKind>;

/** A pay-in or payout record's kind and its two references (the record says which it is by its fields). */
export function transactionOf(record: PayinRecord | PayoutRecord): { kind: TransactionKind; reference: string; gatewayId: string | null } {
  if ('requestId' in record) return { kind: 'payin', ...TRANSACTION_KINDS.payin.references(record) };
  return { kind: 'payout', ...TRANSACTION_KINDS.payout.references(record) };
}
