import { type Settings, settingsSchema } from '../../shared/contract';
import type { SettingsRepository } from '../ledger/repositories/settings';
import type { EventBus } from './event-bus';

export const DEFAULT_SETTINGS: Settings = { theme: 'auto', reconciliationPendingMinutes: 60 };

/** The preferences a person sets (Settings: the theme; reconciliation's threshold). */
const PREFERENCES = Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[];

/**
 * User preferences kept in the ledger, so they follow the data directory. On a team server each
 * person has their own (`person` names whose request is served): kept under keys of their own and
 * pushed to their sessions only; the team's defaults are the ledger's.
 */
export class SettingsService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly events: EventBus,
    private readonly person: () => string | undefined = () => undefined,
  ) {}

  async get(): Promise<Settings> {
    const all = await this.settings.all();
    const mine = personKey(this.person());
    const stored = Object.fromEntries(
      PREFERENCES.flatMap((key) => {
        const value = (mine && all.get(mine(key))) ?? all.get(key);
        return value === undefined ? [] : [[key, JSON.parse(value) as unknown]];
      }),
    );
    const parsed = settingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...stored });
    return parsed.success ? parsed.data : DEFAULT_SETTINGS;
  }

  /** The listener keeps its port across runs, so notification links already given out stay valid. */
  async listenerPort(): Promise<number> {
    const stored = await this.settings.get('listener.port');
    const port = stored === undefined ? 0 : Number(JSON.parse(stored));
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : 0;
  }

  async rememberListenerPort(port: number): Promise<void> {
    await this.write({ 'listener.port': port });
  }

  /** The listener's host as the user last set it (Settings); null: the default, loopback. */
  async listenerHost(): Promise<string | null> {
    const stored = await this.settings.get('listener.host');
    const host: unknown = stored === undefined ? null : JSON.parse(stored);
    return typeof host === 'string' && host !== '' ? host : null;
  }

  async rememberListenerAddress(host: string, port: number): Promise<void> {
    await this.write({ 'listener.host': host, 'listener.port': port });
  }

  async update(patch: Partial<Settings>): Promise<Settings> {
    const person = this.person();
    const mine = personKey(person);
    await this.write(mine ? Object.fromEntries(Object.entries(patch).map(([key, value]) => [mine(key), value])) : patch);
    const settings = await this.get();
    this.events.publish('settings:settings-changed', settings, person ? { personId: person } : undefined);
    return settings;
  }

  private async write(values: Record<string, unknown>): Promise<void> {
    await this.settings.put(new Map(Object.entries(values).flatMap(([key, value]) => (value === undefined ? [] : [[key, JSON.stringify(value)]]))));
  }
}

/** A person's own key for a preference (team server), or undefined on a desk. */
function personKey(person: string | undefined): ((key: string) => string) | undefined {
  return person === undefined ? undefined : (key) => `person:${person}:${key}`;
}
