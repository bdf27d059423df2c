// A field-rule table compiled once into a flat list of checks, for validators that run on every
// request (the emulator validates each create with these). It means exactly what `applyRules`
// means — same issues, same order, same messages — but resolves per table, not per request, what
// applyRules looks up each time: the path segments, whether a method requires the field, the
// type test, the value check, the codes and the expiry pairs. A unit test holds the two equal.
// The type tests and messages are rule-engine.ts's own, imported: one list for both forms.
import { CHECKS, isExpired, type CheckContext } from './field-checks';
import {
  EXPIRED_MESSAGE,
  FORBIDDEN_MESSAGE,
  issueOf,
  nowOf,
  REQUIRED_MESSAGE,
  TYPE_TESTS,
  TYPE_WORD,
  type FieldRule,
  type IssueCode,
  type ValidationIssue,
  type ValidationOptions,
} from './rule-engine';
import { isJsonObject } from '../json';

type Check = (typeof CHECKS)[keyof typeof CHECKS];

interface CompiledRule {
  readonly field: string;
  /** Segments of the path above the field ("customer" of "customer.email"); empty at the top. */
  readonly parents: readonly string[];
  readonly key: string;
  readonly forbidden: boolean;
  readonly requiredAlways: boolean;
  /** Methods that require the field; null when no method does (or every one does). */
  readonly requiredFor: ReadonlySet<string> | null;
  readonly blankIsMissing: boolean;
  readonly typeOk: (value: unknown) => boolean;
  readonly typeWord: string;
  readonly check: Check;
  readonly values: readonly string[] | undefined;
  readonly missing: IssueCode;
  readonly invalid: IssueCode;
  /** The field is half of an expiry pair: its valid value is kept for the "not expired" check. */
  readonly paired: boolean;
}

/** An expiry year and its month field, checked together once every field has been checked. */
interface CompiledPair {
  readonly year: CompiledRule;
  readonly monthField: string;
  /** Whose codes the month's issue carries: the first rule of that field (else the year's). */
  readonly monthCodes: IssueCode;
}

export interface CompiledRules {
  /** The issues `applyRules(rules, body, method, opts)` returns, in the same order. */
  apply(body: Record<string, unknown>, method: string | undefined, opts?: ValidationOptions): ValidationIssue[];
}

export function compileRules(rules: readonly FieldRule[]): CompiledRules {
  const pairedFields = new Set<string>();
  for (const r of rules) {
    if (r.pairedMonth === undefined) continue;
    pairedFields.add(r.field);
    pairedFields.add(r.pairedMonth);
  }
  const compiled: CompiledRule[] = rules.map((r) => {
    const parts = r.field.split('.');
    return {
      field: r.field,
      parents: parts.slice(0, -1),
      key: parts[parts.length - 1] as string,
      forbidden: r.required === 'forbidden',
      requiredAlways: r.required === 'always',
      requiredFor: typeof r.required === 'object' ? new Set(r.required.methods) : null,
      blankIsMissing: r.blankIsMissing !== false,
      typeOk: TYPE_TESTS[r.type],
      typeWord: TYPE_WORD[r.type],
      check: CHECKS[r.check],
      values: r.values,
      missing: r.missing,
      invalid: r.invalid,
      paired: pairedFields.has(r.field),
    };
  });
  const pairs: CompiledPair[] = [];
  compiled.forEach((year, i) => {
    const monthField = rules[i]?.pairedMonth;
    if (monthField === undefined) return;
    pairs.push({ year, monthField, monthCodes: (compiled.find((m) => m.field === monthField) ?? year).invalid });
  });

  return {
    apply(body, method, opts = {}) {
      const now = nowOf(opts);
      const issues: ValidationIssue[] = [];
      // Valid values of paired fields only, by field (a field valid under any of its rules counts).
      const validPaired = pairs.length > 0 ? new Map<string, unknown>() : undefined;
      const ctx: CheckContext = { parent: body, method, siteId: opts.siteId, values: undefined, now };

      for (const r of compiled) {
        let parent: unknown = body;
        for (const part of r.parents) parent = isJsonObject(parent) ? parent[part] : undefined;
        if (!isJsonObject(parent)) continue;
        const value = Object.hasOwn(parent, r.key) ? parent[r.key] : undefined;

        if (r.forbidden) {
          if (value !== undefined) issues.push(issueOf(r.field, 'forbidden', FORBIDDEN_MESSAGE, r.invalid));
          continue;
        }
        const absent = value === undefined || value === null || (r.blankIsMissing && typeof value === 'string' && value.trim() === '');
        if (absent) {
          const required = r.requiredAlways || (method !== undefined && r.requiredFor !== null && r.requiredFor.has(method));
          if (required) issues.push(issueOf(r.field, 'missing', REQUIRED_MESSAGE, r.missing));
          continue;
        }
        if (!r.typeOk(value)) {
          issues.push(issueOf(r.field, 'invalid', r.typeWord, r.invalid));
          continue;
        }
        ctx.parent = parent;
        ctx.values = r.values;
        const message = r.check(value, ctx);
        if (message !== null) issues.push(issueOf(r.field, 'invalid', message, r.invalid));
        else if (r.paired) validPaired?.set(r.field, value);
      }

      // Expiry is one fact spread over two fields: both are named when the card has expired.
      if (validPaired !== undefined && validPaired.size > 0) {
        for (const { year, monthField, monthCodes } of pairs) {
          if (!validPaired.has(year.field) || !validPaired.has(monthField)) continue;
          if (isExpired(validPaired.get(monthField) as string, validPaired.get(year.field) as string, now)) {
            issues.push(issueOf(year.field, 'invalid', EXPIRED_MESSAGE, year.invalid));
            issues.push(issueOf(monthField, 'invalid', EXPIRED_MESSAGE, monthCodes));
          }
        }
      }
      return issues;
    },
  };
}
