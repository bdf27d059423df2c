// Scenarios by e-mail tag, the emulator's fixed interface (docs/emulator.md): a pay-in whose
// e-mail local part carries "+s<3 digits>" ends with that status, a payout whose customer.email
// carries "+s<P|C code>" ends that way; without a tag a pay-in waits for the consumer on the
// hosted page and a payout succeeds. The tag ends at the next "+" or at "@".
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../shared/spec/codes';

export type ScenarioKind = 'payin' | 'payout';

/** The select's value for "no tag". */
export const NO_SCENARIO = 'none';

const TAG: Record<ScenarioKind, RegExp> = {
  payin: /\+s(\d{3})(?=[+@])/i,
  payout: /\+s([PC]\d{3})(?=[+@])/i,
};
const ANY_TAG = /\+s(\d{3}|[PC]\d{3})(?=[+@])/gi;

/** Card problems that also make the vaulting fail on /payment/create/tokenization. */
export const VAULT_FAILURE_CODES = ['317', '318', '319', '320', '517'] as const;

function splitEmail(email: string): { local: string; domain: string } {
  const at = email.lastIndexOf('@');
  return at === -1 ? { local: email, domain: '' } : { local: email.slice(0, at), domain: email.slice(at) };
}

/** The scenario code an e-mail carries, or null. */
export function scenarioOf(email: string, kind: ScenarioKind): string | null {
  const { local } = splitEmail(email);
  const match = TAG[kind].exec(`${local}@`);
  return match ? (match[1] as string).toUpperCase() : null;
}

/** The e-mail with its scenario tags removed and `code`'s tag added (null: no tag). */
export function withScenario(email: string, code: string | null): string {
  const { local, domain } = splitEmail(email);
  const bare = `${local}@`.replace(ANY_TAG, '').slice(0, -1);
  const tagged = code === null ? bare : `${bare}+s${code}`;
  return `${tagged}${domain}`;
}

export interface ScenarioOption {
  value: string;
  label: string;
}

export interface ScenarioGroup {
  group: string;
  items: ScenarioOption[];
}

/** Every code of spec 3.1 (pay-ins) or 3.2 (payouts), grouped by what the tester wants to see. */
export function scenarioGroups(kind: ScenarioKind, vaulting = false): ScenarioGroup[] {
  if (kind === 'payout') {
    const codes = PAYOUT_STATUS_CATALOGUE.map((c) => ({ value: c.code, label: `${c.code} — ${c.meaning}${c.final ? '' : ' (stops there)'}` }));
    return [
      { group: 'No tag', items: [{ value: NO_SCENARIO, label: 'none — the payout succeeds (P200)' }] },
      { group: 'Payout ends with (spec 3.2)', items: codes },
    ];
  }
  const label = (code: number, meaning: string, final: boolean) => `${code} — ${meaning}${final ? '' : ' (stays pending)'}`;
  const none: ScenarioGroup = { group: 'No tag', items: [{ value: NO_SCENARIO, label: 'none — wait for the consumer on the hosted page' }] };
  if (!vaulting) {
    return [none, { group: 'Pay-in ends with (spec 3.1)', items: PAYIN_STATUS_CATALOGUE.map((c) => ({ value: String(c.code), label: label(c.code, c.meaning, c.final) })) }];
  }
  const fails = (code: number) => (VAULT_FAILURE_CODES as readonly string[]).includes(String(code));
  return [
    { ...none, items: [{ value: NO_SCENARIO, label: 'none — card vaulted; the pay-in waits for the consumer' }] },
    {
      group: 'Vaulting fails (card scenario)',
      items: PAYIN_STATUS_CATALOGUE.filter((c) => fails(c.code)).map((c) => ({ value: String(c.code), label: label(c.code, c.meaning, c.final) })),
    },
    {
      group: 'Card vaulted; the pay-in ends with',
      items: PAYIN_STATUS_CATALOGUE.filter((c) => !fails(c.code)).map((c) => ({ value: String(c.code), label: label(c.code, c.meaning, c.final) })),
    },
  ];
}
