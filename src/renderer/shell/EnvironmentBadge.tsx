import { Badge, Tooltip } from '@mantine/core';
import { ENVIRONMENT_COLOR } from '../components/environment-color';
import { useApp } from '../stores/context';

/** Always visible: which gateway every action goes to. A live environment must never look like a test. */
export function EnvironmentBadge() {
  const environment = useApp((state) => state.info?.environment);
  if (!environment) return <Badge variant="outline" color="gray" data-testid="environment-badge">Connecting…</Badge>;
  return (
    <Tooltip label={`Every request goes to: ${environment.label}`}>
      <Badge
        size="lg"
        variant={environment.kind === 'live' ? 'filled' : 'light'}
        color={ENVIRONMENT_COLOR[environment.kind]}
        data-testid="environment-badge"
        data-environment={environment.kind}
      >
        {environment.label}
      </Badge>
    </Tooltip>
  );
}
