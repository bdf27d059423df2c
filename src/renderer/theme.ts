// Paydesk's Mantine theme, readable at WCAG 2.1 AA (4.5:1 for text) in both colour schemes.
// Mantine's defaults do not get there: dimmed text (gray-6 on white, 3.3:1), light badges (teal-9 on
// teal-1, 4.3:1; yellow-9 on yellow-1, 2.7:1), red text (red-6, 3.3:1), white on indigo-6 (4.3:1)
// and, in the dark scheme, dimmed dark-2 (3.5:1). Rather than pick a darker colour per screen, every
// text colour the palette hands out is chosen here, from the palette, against the surfaces it sits on.
import { type CSSVariablesResolver, createTheme, darken, luminance, type MantineColorSchemeManager, type MantineColorsTuple, type MantineTheme } from '@mantine/core';

/**
 * The colour scheme lives in main's settings (or follows the system), and every MantineProvider is
 * given it (forceColorScheme): nothing is kept in the browser. Mantine's default manager read
 * localStorage when the page started (a synchronous call to the browser process) and was made
 * anew at every render of the provider, subscribing again each time.
 */
export const colorSchemeManager: MantineColorSchemeManager = {
  get: (defaultValue) => defaultValue,
  set: () => {},
  subscribe: () => {},
  unsubscribe: () => {},
  clear: () => {},
};

/** WCAG 2.1 AA for normal text (1.4.3). */
export const AA_CONTRAST = 4.5;

/** The contrast ratio of two colours (any CSS colour Mantine parses: hex, rgb, rgba). */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * The first candidate that reads at AA on every background; if none does, the last one darkened
 * (light scheme) or the lightest one (dark scheme) step by step until it does.
 */
export function readableOn(backgrounds: readonly string[], candidates: readonly string[], scheme: 'light' | 'dark'): string {
  const reads = (color: string) => backgrounds.every((background) => contrastRatio(color, background) >= AA_CONTRAST);
  const found = candidates.find(reads);
  if (found) return found;
  const last = candidates.at(-1) as string;
  for (let step = 0.05; step < 1; step += 0.05) {
    const adjusted = scheme === 'light' ? darken(last, step) : lighten(last, step);
    if (reads(adjusted)) return adjusted;
  }
  return scheme === 'light' ? '#000000' : '#ffffff';
}

function lighten(color: string, amount: number): string {
  const channels = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color)?.slice(1).map(Number) ?? hexChannels(color);
  const [r, g, b] = channels.map((c) => Math.round(c + (255 - c) * amount)) as [number, number, number];
  return `rgba(${r}, ${g}, ${b}, 1)`;
}

function hexChannels(hex: string): number[] {
  const digits = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
}

const shades = (palette: MantineColorsTuple, indexes: number[]) => indexes.map((i) => palette[i] as string);

/** The surfaces text sits on: page, cards and striped rows, hovered or selected rows. */
function surfaces(theme: MantineTheme, scheme: 'light' | 'dark'): string[] {
  return scheme === 'light' ? [theme.white, theme.colors.gray[0], theme.colors.gray[1]] : shades(theme.colors.dark, [5, 6, 7, 8]);
}

/**
 * The light variant's backgrounds, as Mantine draws them: at rest (badges, alerts, the active
 * navigation link) and under the pointer (that link, a light or subtle button hovered).
 */
export function lightVariantBackgrounds(palette: MantineColorsTuple, scheme: 'light' | 'dark'): { rest: string; hover: string } {
  return scheme === 'light' ? { rest: palette[1], hover: palette[2] } : { rest: darken(palette[9], 0.5), hover: darken(palette[9], 0.3) };
}

/**
 * Per palette colour: its text colour (`c="red"`, outline badges, anchors) on the page's surfaces,
 * and its light variant's text on that variant's backgrounds, at rest and hovered (Mantine's own,
 * indigo-9 on indigo-2, read at 4.1:1 under the pointer).
 */
function colorVariables(theme: MantineTheme, scheme: 'light' | 'dark'): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, palette] of Object.entries(theme.colors)) {
    const text = scheme === 'light' ? readableOn(surfaces(theme, 'light'), shades(palette, [6, 7, 8, 9]), 'light') : readableOn(surfaces(theme, 'dark'), shades(palette, [4, 3, 2, 1, 0]), 'dark');
    const { rest, hover } = lightVariantBackgrounds(palette, scheme);
    const lightText = scheme === 'light' ? readableOn([rest, hover], shades(palette, [9]), 'light') : readableOn([rest, hover], shades(palette, [0]), 'dark');
    variables[`--mantine-color-${name}-text`] = text;
    variables[`--mantine-color-${name}-outline`] = text;
    variables[`--mantine-color-${name}-light-color`] = lightText;
  }
  return variables;
}

export const cssVariablesResolver: CSSVariablesResolver = (theme) => {
  const primary = theme.colors[theme.primaryColor] as MantineColorsTuple;
  const quiet = (scheme: 'light' | 'dark') =>
    scheme === 'light' ? readableOn(surfaces(theme, 'light'), shades(theme.colors.gray, [6, 7, 8, 9]), 'light') : readableOn(surfaces(theme, 'dark'), shades(theme.colors.dark, [2, 1, 0]), 'dark');
  const schemeVariables = (scheme: 'light' | 'dark') => {
    const colors = colorVariables(theme, scheme);
    return {
      ...colors,
      '--mantine-color-dimmed': quiet(scheme),
      '--mantine-color-placeholder': quiet(scheme),
      '--mantine-color-anchor': colors[`--mantine-color-${theme.primaryColor}-text`] ?? (primary[7] as string),
      '--mantine-color-error': colors['--mantine-color-red-text'] as string,
    };
  };
  return { variables: {}, light: schemeVariables('light'), dark: schemeVariables('dark') };
};

export const theme = createTheme({
  primaryColor: 'indigo',
  // White on indigo-7 reads at 5:1 (on Mantine's default indigo-6, 4.3:1).
  primaryShade: { light: 7, dark: 8 },
  // Filled badges and buttons of light colours (teal, yellow, gray) get black text: the threshold is
  // where black and white read equally well, so either choice reads at 4.58:1 at least.
  autoContrast: true,
  luminanceThreshold: 0.179,
  defaultRadius: 'md',
  components: {
    // Mantine keeps every select's options mounted (hidden) by default: on the pay-ins screen that
    // is some 280 options and half the page's DOM, rendered before the first row. Options are
    // rendered when a dropdown opens instead.
    Combobox: { defaultProps: { keepMounted: false } },
    // The × of every dialog is a button: it needs a name.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    // A toast's close button is named too (axe: button-name).
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    // A link in a sentence is told from the text around it by more than its colour (WCAG 1.4.1).
    Anchor: { defaultProps: { underline: 'always' } },
    // A badge (a status, a state, a category) reads whole: it is never narrower than its text.
    // Mantine's clips its label, so a table column or a row of a flex group could squeeze a status
    // to "OUTCOME UNK…"; now the column or the group makes room, and a list sizes its columns for it.
    Badge: { styles: { root: { minWidth: 'max-content' } } },
  },
});
