// Applies a field-rule table to a request body and returns every issue, so a gateway can name
// every offending field and a form can mark every bad input, with the same rules.
import type { ReasonCode } from './codes';
import { CHECKS, isExpired, type CheckName } from './field-checks';
import { isJsonObject, isLosslessNumber } from '../json';

export type StatusCode = number | string;

export interface IssueCode {
  status_code: StatusCode;
  reason_code: ReasonCode;
}

export type Requirement =
  | 'always'
  | 'optional'
  /** Must not be sent (card data outside merchant_jwt). */
  | 'forbidden'
  /** Required only when the body's method is one of these. */
  | { methods: readonly string[] };

export type FieldType = 'string' | 'number' | 'boolean' | 'object';

export interface FieldRule {
  /** Dotted path: "amount", "customer.email", "paymentDetails.iban". */
  readonly field: string;
  readonly type: FieldType;
  readonly required: Requirement;
  readonly check: CheckName;
  /** The rule in words, as the spec or our documented choice states it. */
  readonly rule: string;
  readonly missing: IssueCode;
  readonly invalid: IssueCode;
  /** Allowed values of an enum check. */
  readonly values?: readonly string[];
  /** For an expiry year: the sibling month field, checked together for "not expired". */
  readonly pairedMonth?: string;
  /** False when a blank string is an invalid value rather than a missing one (cardHolder). */
  readonly blankIsMissing?: boolean;
}

export interface ValidationIssue extends IssueCode {
  field: string;
  problem: 'missing' | 'invalid' | 'forbidden';
  message: string;
}

export interface ValidationResult {
  ok: boolean;
  issues: ValidationIssue[];
  /** The issue whose codes the error response carries (see ISSUE_PRECEDENCE); null when ok. */
  primary: ValidationIssue | null;
  /** field -> message for every offending field: the `details` of the error response. */
  details: Record<string, string>;
}

export interface ValidationOptions {
  /** Current time (ms since epoch or Date) for expiry and birth-date checks; default now. */
  now?: number | Date;
  /** The merchant's site id; when set, a different site id is an issue (505 / INVALID_SITE). */
  siteId?: string;
}

/**
 * Several fields can fail at once; the response carries one status_code and reason_code. The
 * first reason in this list that occurs wins: the method decides which fields exist, then the
 * site, then missing data, then the most specific value errors, then generic invalid values.
 */
export const ISSUE_PRECEDENCE: readonly ReasonCode[] = [
  'INVALID_REQUEST',
  'MISSING_PAYMENT_METHOD',
  'INVALID_PAYMENT_METHOD',
  'INVALID_SITE',
  'MISSING_AMOUNT',
  'MISSING_PARAMS',
  'INVALID_AMOUNT',
  'UNSUPPORTED_CURRENCY',
  'UNSUPPORTED_COUNTRY',
  'INVALID_MERCHANT_JWT',
  'INVALID_CARD_NUMBER',
  'INVALID_EXPIRY',
  'INVALID_CVV',
  'INVALID_CARDHOLDER_NAME',
  'INVALID_PARAMS',
];

export function primaryIssue(issues: readonly ValidationIssue[]): ValidationIssue | null {
  let best: ValidationIssue | null = null;
  let bestRank = Infinity;
  for (const issue of issues) {
    const idx = ISSUE_PRECEDENCE.indexOf(issue.reason_code);
    const rank = idx === -1 ? ISSUE_PRECEDENCE.length : idx;
    if (rank < bestRank) {
      best = issue;
      bestRank = rank;
    }
  }
  return best;
}

export function toResult(issues: ValidationIssue[]): ValidationResult {
  const details: Record<string, string> = {};
  for (const i of issues) details[i.field] ??= i.message;
  return { ok: issues.length === 0, issues, primary: primaryIssue(issues), details };
}

function lookup(body: Record<string, unknown>, path: string): { parent: Record<string, unknown> | undefined; value: unknown } {
  const parts = path.split('.');
  let parent: unknown = body;
  for (const part of parts.slice(0, -1)) {
    parent = isJsonObject(parent) ? parent[part] : undefined;
  }
  const last = parts[parts.length - 1] as string;
  return isJsonObject(parent) ? { parent, value: Object.hasOwn(parent, last) ? parent[last] : undefined } : { parent: undefined, value: undefined };
}

/** The test a value must pass to be of a rule's type; used by applyRules and compileRules alike. */
export const TYPE_TESTS: Readonly<Record<FieldType, (value: unknown) => boolean>> = {
  string: (v) => typeof v === 'string',
  number: (v) => (typeof v === 'number' && Number.isFinite(v)) || isLosslessNumber(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => isJsonObject(v),
};

/** The message of a value of the wrong type. */
export const TYPE_WORD: Readonly<Record<FieldType, string>> = {
  string: 'must be a string',
  number: 'must be a JSON number',
  boolean: 'must be a boolean',
  object: 'must be an object',
};

export const REQUIRED_MESSAGE = 'is required';
export const FORBIDDEN_MESSAGE = 'must not be sent in this request (card data goes only inside merchant_jwt)';
/** Given to both fields of an expiry pair. */
export const EXPIRED_MESSAGE = 'the card has expired';

export function issueOf(field: string, problem: ValidationIssue['problem'], message: string, code: IssueCode): ValidationIssue {
  return { field, problem, message, status_code: code.status_code, reason_code: code.reason_code };
}

/** The time the checks measure expiry and age against, in ms since the epoch. */
export function nowOf(opts: ValidationOptions): number {
  return opts.now === undefined ? Date.now() : typeof opts.now === 'number' ? opts.now : opts.now.getTime();
}

function isRequired(req: Requirement, method: string | undefined): boolean {
  if (req === 'always') return true;
  if (req === 'optional' || req === 'forbidden') return false;
  return method !== undefined && req.methods.includes(method);
}

/**
 * Checks `body` against `rules`. `method` is the body's valid method (or undefined), which
 * decides conditional fields. Fields under an absent or malformed parent object are skipped:
 * the parent's own issue names the problem once.
 *
 * This is the tables' meaning written plainly, and the reference the validators are held to:
 * they run the same tables compiled once (`compileRules`, compiled-rules.ts), and a unit test
 * (test/unit/shared/compiled-rules.test.ts) checks that the compiled form returns exactly what
 * this function returns. Nothing else calls it; it stays here, beside the types and messages it
 * shares with the compiled form, so that whoever changes a rule's meaning reads and changes it
 * here first.
 */
export function applyRules(
  rules: readonly FieldRule[],
  body: Record<string, unknown>,
  method: string | undefined,
  opts: ValidationOptions = {},
): ValidationIssue[] {
  const now = nowOf(opts);
  const issues: ValidationIssue[] = [];
  const valid = new Set<string>();
  const add = (rule: FieldRule, problem: ValidationIssue['problem'], message: string): void => {
    issues.push(issueOf(rule.field, problem, message, problem === 'missing' ? rule.missing : rule.invalid));
  };

  for (const rule of rules) {
    const { parent, value } = lookup(body, rule.field);
    if (parent === undefined) continue;
    const blank = typeof value === 'string' && value.trim() === '';
    const absent = value === undefined || value === null || (blank && rule.blankIsMissing !== false);
    if (rule.required === 'forbidden') {
      if (value !== undefined) add(rule, 'forbidden', FORBIDDEN_MESSAGE);
      continue;
    }
    if (absent) {
      if (isRequired(rule.required, method)) add(rule, 'missing', REQUIRED_MESSAGE);
      continue;
    }
    if (!TYPE_TESTS[rule.type](value)) {
      add(rule, 'invalid', TYPE_WORD[rule.type]);
      continue;
    }
    const message = CHECKS[rule.check](value, { parent, method, siteId: opts.siteId, values: rule.values, now });
    if (message !== null) add(rule, 'invalid', message);
    else valid.add(rule.field);
  }

  // Expiry is one fact spread over two fields: both are named when the card has expired.
  for (const rule of rules) {
    if (rule.pairedMonth === undefined || !valid.has(rule.field) || !valid.has(rule.pairedMonth)) continue;
    const year = lookup(body, rule.field).value as string;
    const month = lookup(body, rule.pairedMonth).value as string;
    if (isExpired(month, year, now)) {
      const monthRule = rules.find((r) => r.field === rule.pairedMonth) ?? rule;
      add(rule, 'invalid', EXPIRED_MESSAGE);
      add(monthRule, 'invalid', EXPIRED_MESSAGE);
    }
  }
  return issues;
}

/** Issue for a body that is not a JSON object at all. */
export function notAnObject(code: IssueCode): ValidationResult {
  return toResult([{ field: '(body)', problem: 'invalid', message: 'the body must be a JSON object', ...code }]);
}
