import { Alert, Select, Stack } from '@mantine/core';
import type { EnvironmentKind } from '../../../shared/contract';
import { NO_SCENARIO, scenarioGroups, scenarioOf, type ScenarioKind, withScenario } from './scenarios';

interface ScenarioSelectProps {
  kind: ScenarioKind;
  /** The e-mail that carries the tag (pay-in email / payout customer.email). */
  email: string;
  onEmailChange: (email: string) => void;
  environment: EnvironmentKind;
  /** Tokenization: group the card codes that make the vaulting fail. */
  vaulting?: boolean;
  label?: string;
}

/**
 * The scenario is the e-mail's "+s<code>" tag and nothing else, so the select always shows what
 * the e-mail says (also when the tag is typed by hand) and choosing a scenario rewrites the tag.
 */
export function ScenarioSelect({ kind, email, onEmailChange, environment, vaulting = false, label = 'Scenario' }: ScenarioSelectProps) {
  const current = scenarioOf(email, kind);
  const groups = scenarioGroups(kind, vaulting);
  const known = groups.some((g) => g.items.some((i) => i.value === current));
  const data = current !== null && !known ? [...groups, { group: 'From the e-mail', items: [{ value: current, label: `${current} — not in the catalogue` }] }] : groups;
  const field = kind === 'payin' ? 'email' : 'customer.email';
  return (
    <Stack gap={4}>
      <Select
        label={label}
        description={`Sets the "+s<code>" tag of ${field}.`}
        data={data}
        value={current ?? NO_SCENARIO}
        onChange={(value) => onEmailChange(withScenario(email, value === null || value === NO_SCENARIO ? null : value))}
        searchable
        allowDeselect={false}
        maxDropdownHeight={360}
        comboboxProps={{ width: 'target' }}
      />
      {environment !== 'local' && (
        <Alert color="yellow" p="xs" data-testid="scenario-emulator-only">
          Scenario tags are understood by the local emulator only. The {environment === 'sandbox' ? 'provider sandbox' : 'live gateway'} treats the tag as part of an ordinary
          e-mail address and decides the outcome itself.
        </Alert>
      )}
    </Stack>
  );
}
