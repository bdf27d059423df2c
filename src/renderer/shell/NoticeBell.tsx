// The bell in the header (docs/notifications.md): the person's unread notices, live, and
// their inbox in a panel, each notice a link to the approval, payout or batch it is about. In a
// browser (web mode, a team server's page) a new notice also shows as a desktop notification once
// the person allowed it; in the Electron app main shows them (src/main/desktop-notices.ts).
import { ActionIcon, Anchor, Button, Group, Indicator, Popover, ScrollArea, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import type { NoticeView } from '../../shared/contract';
import { DateTime } from '../components/DateTime';
import { useLiveQuery } from '../components/use-live-query';
import { useApi } from '../stores/context';
import { useBrowserNotices } from './browser-notices';
import { routeHash } from './use-route';

export function NoticeBell() {
  const api = useApi();
  const inbox = useLiveQuery(() => api.invoke('notices:list', { limit: 30 }), [], { pushes: ['notices:inbox-changed'], throttleMs: 200 });
  const browser = useBrowserNotices();
  useEffect(() => api.on('notices:inbox-changed', ({ added }) => browser.show(added)), [api, browser]);
  const unread = inbox.data?.unread ?? 0;
  const open = (notice: NoticeView) => {
    if (!notice.read) void api.invoke('notices:mark-read', { ids: [notice.id] }).then(() => inbox.reload());
  };
  return (
    <Popover width={380} position="bottom-end" shadow="md">
      <Popover.Target>
        {/* The button is the popover's target (it carries aria-expanded); the count sits on its icon. */}
        <ActionIcon variant="default" size="lg" aria-label={unread === 0 ? 'Notices' : `Notices: ${unread} unread`} data-testid="notice-bell">
          <Indicator label={unread} size={16} disabled={unread === 0} aria-hidden="true">
            <BellIcon />
          </Indicator>
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown data-testid="notice-inbox">
        <Group justify="space-between" mb="xs">
          <Text fw={600}>Notices</Text>
          <Group gap="xs">
            {browser.askable && (
              <Button size="compact-xs" variant="light" onClick={() => void browser.ask()}>
                Show on the desktop
              </Button>
            )}
            <Button size="compact-xs" variant="default" disabled={unread === 0} onClick={() => void api.invoke('notices:mark-read', { all: true }).then(() => inbox.reload())}>
              Mark all read
            </Button>
          </Group>
        </Group>
        <ScrollArea.Autosize mah={420}>
          <Stack gap="xs">
            {inbox.data?.items.length === 0 && <Text c="dimmed" size="sm">Nothing to tell you.</Text>}
            {inbox.data?.items.map((notice) => (
              <Anchor key={notice.id} href={notice.link} onClick={() => open(notice)} underline="never" c="inherit" data-testid="notice" data-read={notice.read || undefined}>
                <Text size="sm" fw={notice.read ? 400 : 700}>
                  {notice.title}
                </Text>
                <Text size="xs" c="dimmed">
                  {notice.body}
                </Text>
                <Text size="xs" c="dimmed">
                  <DateTime iso={notice.createdAt} />
                </Text>
              </Anchor>
            ))}
          </Stack>
        </ScrollArea.Autosize>
        <Anchor href={routeHash('settings', { id: 'notices' })} size="xs" mt="xs" display="block">
          Notice settings
        </Anchor>
      </Popover.Dropdown>
    </Popover>
  );
}

/** A bell drawn as the other icons are (an emoji is a box where no emoji font is installed). */
function BellIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" style={{ display: 'block' }}>
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}
