import type { EnvironmentKind } from '../../shared/contract';

/** One colour per environment wherever it is shown; live is red, and filled where it is a badge. */
export const ENVIRONMENT_COLOR: Record<EnvironmentKind, string> = { local: 'teal', sandbox: 'yellow', live: 'red' };
