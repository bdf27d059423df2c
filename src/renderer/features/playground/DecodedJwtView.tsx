import { Badge, Card, Group, List, SimpleGrid, Stack, Text } from '@mantine/core';
import type { DecodedJwtView as Decoded } from '../../../shared/contract';
import { SIGNATURE_BADGES, signatureSentence } from './jwt-text';
import { RawBlock } from './RawBlock';

/** Spec 5.4 / 2.6: iat must be within 120 s of server time, either way. */
export const IAT_TOLERANCE_SECONDS = 120;

function skewText(skew: number): string {
  if (skew === 0) return 'issued now';
  return skew > 0 ? `issued ${skew} s in the future` : `issued ${-skew} s ago`;
}

/** A decoded merchant JWT: verdict first, then the parts (card numbers already masked by main). */
export function DecodedJwtView({ decoded }: { decoded: Decoded }) {
  const signature = SIGNATURE_BADGES[decoded.signature.status];
  const skew = decoded.iatSkewSeconds;
  return (
    <Card withBorder data-testid="decoded-jwt">
      <Stack gap="sm">
        <Group gap="xs">
          <Badge size="lg" color={signature.color} data-testid="jwt-signature" data-status={decoded.signature.status}>
            {signature.label}
          </Badge>
          {skew === null ? (
            <Badge size="lg" color="red" variant="light" data-testid="jwt-iat">
              no numeric iat
            </Badge>
          ) : (
            <Badge size="lg" variant="light" color={decoded.iatWithinTolerance ? 'teal' : 'red'} data-testid="jwt-iat" data-skew={skew}>
              iat skew {skew > 0 ? '+' : ''}
              {skew} s · {decoded.iatWithinTolerance ? 'within' : 'outside'} ±{IAT_TOLERANCE_SECONDS} s
            </Badge>
          )}
        </Group>
        <Text size="sm" data-testid="jwt-signature-why">
          {signatureSentence(decoded)}
        </Text>
        {skew !== null && (
          <Text size="sm" c="dimmed">
            {skewText(skew)} by this computer&apos;s clock; the gateway refuses more than {IAT_TOLERANCE_SECONDS} s either way (INVALID_MERCHANT_JWT).
          </Text>
        )}
        {decoded.problems.length > 0 && (
          <div>
            <Text size="sm" fw={600}>
              What the gateway would object to
            </Text>
            <List size="sm" data-testid="jwt-problems">
              {decoded.problems.map((problem) => (
                <List.Item key={problem}>{problem}</List.Item>
              ))}
            </List>
          </div>
        )}
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <RawBlock title="Header" text={decoded.header === null ? null : JSON.stringify(decoded.header)} />
          <RawBlock title="Claims" text={decoded.claims === null ? null : JSON.stringify(decoded.claims)} note="Card numbers masked to first 6 / last 4; CVV-like claims removed." />
        </SimpleGrid>
      </Stack>
    </Card>
  );
}
