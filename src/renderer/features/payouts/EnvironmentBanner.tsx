import { Alert, Text } from '@mantine/core';
import type { EnvironmentKind } from '../../../shared/contract';

/**
 * Where a payout will go, impossible to miss: a live payout never looks like a test one. Shown on
 * every review (manual and batch), next to the send button.
 */
export function EnvironmentBanner({ environment, profileName }: { environment: EnvironmentKind; profileName: string }) {
  if (environment === 'live') {
    // Its text takes the filled red's own contrast colour (theme autoContrast), as its title does:
    // white on red-7 reads at 3.8:1 only.
    return (
      <Alert variant="filled" color="red" title="LIVE — real money" data-testid="environment-banner" data-environment="live">
        <Text size="sm">
          Profile “{profileName}” is a live gateway: this sends real money to a real beneficiary and cannot be undone.
        </Text>
      </Alert>
    );
  }
  if (environment === 'sandbox') {
    return (
      <Alert color="yellow" title="Provider sandbox — payouts are disabled" data-testid="environment-banner" data-environment="sandbox">
        Spec section 4, rule 3: the sandbox has no payout endpoints. Switch to the local emulator or a live profile in Settings.
      </Alert>
    );
  }
  return (
    <Alert color="teal" title="Local emulator — test payout" data-testid="environment-banner" data-environment="local">
      Profile “{profileName}” is the embedded gateway emulator: no real money moves.
    </Alert>
  );
}
