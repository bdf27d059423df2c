import type { AppInfo } from '../../shared/contract';
import type { SettingsService } from '../services/settings-service';
import type { Handlers } from './dispatcher';

interface AppDeps {
  settings: SettingsService;
  info: () => Promise<AppInfo>;
}

export function appHandlers({ settings, info }: AppDeps): Pick<Handlers, 'app:get-info' | 'settings:get' | 'settings:update'> {
  return {
    'app:get-info': () => info(),
    'settings:get': () => settings.get(),
    'settings:update': (patch) => settings.update(patch),
  };
}
