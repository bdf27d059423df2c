// The theme's text colours read at WCAG 2.1 AA (4.5:1) on the surfaces they are used on, in both
// schemes, for every palette colour: the axe audit (test/e2e/accessibility.test.ts) checks the
// screens, this checks the colours no screen happens to show today.
import { darken, DEFAULT_THEME, mergeMantineTheme } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { AA_CONTRAST, contrastRatio, cssVariablesResolver, lightVariantBackgrounds, readableOn, theme } from '../../../src/renderer/theme';

const full = mergeMantineTheme(DEFAULT_THEME, theme);
const resolved = cssVariablesResolver(full);
const surfaces = {
  light: [full.white, full.colors.gray[0], full.colors.gray[1]],
  dark: [full.colors.dark[5], full.colors.dark[6], full.colors.dark[7], full.colors.dark[8]],
} as const;

describe('theme contrast', () => {
  it('knows the WCAG ratios: black on white 21:1, a colour on itself 1:1', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#868e96', '#868e96')).toBe(1);
    // Mantine's default dimmed text on white, which the audit found.
    expect(contrastRatio('#868e96', '#ffffff')).toBeCloseTo(3.32, 2);
    // Mantine's active navigation link under the pointer in the light scheme.
    expect(contrastRatio('#364fc7', '#bac8ff')).toBeCloseTo(4.13, 2);
  });

  it('darkens (light scheme) or lightens (dark scheme) a colour no palette shade makes readable', () => {
    const yellowOnYellow = readableOn([full.colors.yellow[1]], [full.colors.yellow[9]], 'light');
    expect(contrastRatio(yellowOnYellow, full.colors.yellow[1])).toBeGreaterThanOrEqual(AA_CONTRAST);
    const darkOnDark = readableOn(['#2e2e2e'], ['#424242'], 'dark');
    expect(contrastRatio(darkOnDark, '#2e2e2e')).toBeGreaterThanOrEqual(AA_CONTRAST);
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`gives every palette colour a text and a light-variant colour readable in the ${scheme} scheme`, () => {
      const variables: Record<string, string> = resolved[scheme];
      for (const [name, palette] of Object.entries(full.colors)) {
        const text = variables[`--mantine-color-${name}-text`] ?? '';
        for (const surface of surfaces[scheme]) expect(contrastRatio(text, surface), `${name} text on ${surface}`).toBeGreaterThanOrEqual(AA_CONTRAST);
        // The light variant's backgrounds, as Mantine draws them in each scheme: at rest and under the pointer.
        const lightBackground = scheme === 'light' ? (palette[1] as string) : darken(palette[9] as string, 0.5);
        const lightHover = scheme === 'light' ? (palette[2] as string) : darken(palette[9] as string, 0.3);
        expect(lightVariantBackgrounds(palette, scheme)).toEqual({ rest: lightBackground, hover: lightHover });
        expect(contrastRatio(variables[`--mantine-color-${name}-light-color`] ?? '', lightBackground), `${name} light variant`).toBeGreaterThanOrEqual(AA_CONTRAST);
        expect(contrastRatio(variables[`--mantine-color-${name}-light-color`] ?? '', lightHover), `${name} light variant hovered`).toBeGreaterThanOrEqual(AA_CONTRAST);
      }
      for (const quiet of ['--mantine-color-dimmed', '--mantine-color-placeholder', '--mantine-color-anchor', '--mantine-color-error']) {
        for (const surface of surfaces[scheme]) expect(contrastRatio(variables[quiet] ?? '', surface), `${quiet} on ${surface}`).toBeGreaterThanOrEqual(AA_CONTRAST);
      }
    });
  }
});
