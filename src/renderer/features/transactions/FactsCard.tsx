import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** One labelled fact of a transaction's panel; plain text is set in the panel's size. */
export function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <Stack gap={0} data-testid={testId}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
    </Stack>
  );
}

/** A titled panel of facts, two to a row on wide screens. */
export function FactsCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder padding="md">
      <Title order={4} mb="sm">
        {title}
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm">
        {children}
      </SimpleGrid>
    </Card>
  );
}
