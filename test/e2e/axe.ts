/// <reference lib="dom" />
// The WCAG 2.1 A/AA audit (docs/architecture.md, "The renderer and accessibility"): axe-core
// injected into the page with playwright-core, run on what the page shows, and its serious and
// critical findings written so a failure says which rule, on which element, and why, without
// opening a report.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue, Result } from 'axe-core';
import type { Locator, Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const FAILING: ImpactValue[] = ['serious', 'critical'];

/**
 * The serious and critical WCAG 2.1 A/AA violations on the page as it is now, or only within
 * `region` (a control hovered or focused, audited where it sits).
 */
export async function wcagViolations(page: Page, region?: Locator): Promise<Result[]> {
  // Colours are measured as drawn: a dialog fading in or a theme switching mid-transition would
  // read as low contrast. Wait until nothing animates but what always does (a spinner).
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity));
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern;
  // a script tag would be refused, as it should be.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  type Axe = { axe: { run: (context: Document | Element, options: object) => Promise<AxeResults> } };
  const options = { runOnly: { type: 'tag', values: WCAG_TAGS }, resultTypes: ['violations'] };
  const results = region
    ? await region.evaluate((element, opts) => (window as unknown as Axe).axe.run(element, opts), options)
    : await page.evaluate((opts) => (window as unknown as Axe).axe.run(document, opts), options);
  return results.violations.filter((violation) => violation.impact != null && FAILING.includes(violation.impact));
}

/** One paragraph per rule: its id, impact and help, then each element (selector and what is wrong), at most `perRule`. */
export function describeViolations(violations: readonly Result[], perRule = 5): string {
  return violations
    .map((violation) => {
      const nodes = violation.nodes.slice(0, perRule).map((node) => `  - ${node.target.join(' ')}\n    ${node.failureSummary?.replace(/\n\s*/g, ' ') ?? ''}`);
      const more = violation.nodes.length > perRule ? [`  … and ${violation.nodes.length - perRule} more`] : [];
      return [`${violation.id} (${violation.impact}): ${violation.help} [${violation.nodes.length} element(s)]`, ...nodes, ...more].join('\n');
    })
    .join('\n');
}
