import { Stack, Text, Title } from '@mantine/core';

/** Stands in for screens that later issues build; the navigation to them is real. */
export function PlaceholderScreen({ title, description }: { title: string; description: string }) {
  return (
    <Stack gap="xs">
      <Title order={2}>{title}</Title>
      <Text c="dimmed">{description}</Text>
    </Stack>
  );
}
