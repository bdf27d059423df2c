// The evidence pack: everything the ledger knows about one transaction, as one JSON document to
// hand to the provider's support or an auditor — the ledger row, every create attempt (request as
// stored, answer), every raw notification (body and headers), every status read, the audit entries
// the vaulted token's metadata, and the settlement report lines that settle it (statements). It never holds a secret: every part goes through the shared
// masker once, field by field (card numbers masked to first 6 / last 4; CVV, merchant_jwt,
// merchant-token and private keys removed; ids, references and amounts kept byte for byte), a
// notification's raw body and headers as text (raw.ts), and the listener's unguessable path (it
// appears in notification_link) is replaced too.
import type { TransactionSubject } from '../../../shared/contract';
import { parseJson, stringifyJson } from '../../../shared/json';
import { REDACTED, redact } from '../../../shared/redact';
import { describeReason } from '../../../shared/spec/codes';
import type { Repositories } from '../../ledger/repositories/index';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import { isoTime, sha256Hex, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import type { LedgerViews } from '../ledger-views/ledger-views';
import { bodyText, headerPairs } from '../ledger-views/raw';
import { cardView } from '../payments/views';
import { KIND_OF_ATTEMPT, TRANSACTION_KINDS, transactionOf } from '../../transaction-kinds';
import { lineView } from '../statements/views';
import { profileIdentity } from '../profile-service';

export const EVIDENCE_FORMAT = 'paydesk-evidence-pack/1';

/** Stored JSON text as a value (so the pack nests it), else the text itself. */
function asJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

export class EvidenceService {
  constructor(
    private readonly deps: { repos: Repositories; views: LedgerViews; now: Clock; version: string },
  ) {}

  async export(subject: TransactionSubject, id: number): Promise<{ filename: string; json: string }> {
    const { repos } = this.deps;
    const kind = TRANSACTION_KINDS[subject];
    const record: PayinRecord | PayoutRecord | undefined = await kind.store(repos).byId(id);
    if (!record) throw new ServiceError('not_found', `No ${kind.noun} with id ${id} in the ledger.`);
    const profile = await repos.profiles.get(record.profileId);
    const { reference, gatewayId } = transactionOf(record);

    const attempts = (await repos.attempts.forReference(record.profileId, reference))
      .filter((a) => KIND_OF_ATTEMPT[a.kind] === subject)
      .map((a) => ({
        id: a.id,
        kind: a.kind,
        idempotencyKey: a.idempotencyKey,
        state: a.state,
        sendCount: a.tryCount,
        requestHash: a.requestHash,
        request: asJson(a.requestBody),
        httpStatus: a.httpStatus,
        responseSource: a.responseSource,
        response: asJson(a.responseBody),
        error: a.error,
        createdAt: a.createdAt,
        lastSentAt: a.lastSentAt,
        completedAt: a.completedAt,
      }));
    const notifications = (await kind.notifications(repos, id)).map((n) => {
      // Body and headers are masked as text by bodyText and headerPairs; the masker sees the rest.
      const body = bodyText(n.body);
      return {
        ...(redact({
          id: n.id,
          receivedAt: n.receivedAt,
          sourceAddress: n.sourceAddress,
          event: n.event,
          statusCode: n.statusCode,
          outcome: n.outcome,
          detail: n.detail,
          answerStatus: n.answerStatus,
        }) as object),
        headers: headerPairs(n.rawHeaders),
        body: body.text,
        bodyRedacted: body.redacted,
        bodySize: n.bodySize,
        bodyTruncated: n.bodyTruncated,
        bodySha256: sha256Hex(n.body.toString('utf8')),
      };
    });
    const statusReads = (await kind.statusReads(repos, id)).map((r) => ({
      id: r.id,
      reference: r.reference,
      requestedAt: r.requestedAt,
      request: asJson(r.requestBody),
      respondedAt: r.respondedAt,
      httpStatus: r.httpStatus,
      result: r.result,
      statusCode: r.statusCode,
      response: asJson(r.responseBody),
      error: r.error,
    }));
    const audit = (await this.deps.views.auditFor(record.profileId, [reference, gatewayId])).map((e) => ({ ...e, details: asJson(e.details) }));
    const linked = { id, profileId: record.profileId, reference, gatewayId };
    const tokens = await kind.vaultedTokens(repos, linked);

    const card = (await repos.cards.of(subject, [id])).get(id) ?? null;
    // Who made and who approved a payout (or its batch) the approval policy held back, under which rule, bound to which body.
    const approvals = (await kind.approvals(repos, linked)).map((a) => ({
      kind: a.kind,
      id: a.id,
      state: a.state,
      policy: a.policy,
      maker: a.makerName,
      decidedBy: a.decidedByName,
      reason: a.reason,
      bodyHash: a.bodyHash,
      idempotencyKey: a.idempotencyKey,
      reviewed: asJson(a.reviewed),
      requestedAt: a.createdAt,
      expiresAt: a.expiresAt,
      decidedAt: a.decidedAt,
    }));
    // What the settlement reports say of it: the lines matched to it (by id, or by a person).
    const settlement = (await repos.settlementLines.forRow(subject, id)).map(lineView);
    const document = {
      format: EVIDENCE_FORMAT,
      exportedAt: isoTime(this.deps.now()),
      generator: { app: 'Paydesk', version: this.deps.version },
      profile: profile && redact(profileIdentity(profile)),
      subject,
      transaction: redact({
        ...record,
        card: cardView(card),
        statusMeaning: record.statusCode === null ? null : kind.describeStatus(record.statusCode).meaning,
        reasonMeaning: record.reasonCode === null ? null : describeReason(record.reasonCode).meaning,
      }),
      attempts: redact(attempts),
      notifications,
      statusReads: redact(statusReads),
      audit: redact(audit),
      approvals: redact(approvals),
      tokens: redact(tokens),
      settlement: redact(settlement),
    };
    let json = stringifyJson(document, 2);
    // The listener path is a capability: whoever knows it can post to the listener.
    if (profile) json = json.split(profile.listenerPathSecret).join(REDACTED);
    const safeRef = reference.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
    return { filename: `paydesk-evidence-${subject}-${safeRef}.json`, json };
  }
}
