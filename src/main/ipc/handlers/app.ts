import type { appContract } from '../../../shared/contract';
import type { AppInfoService } from '../../services/app-info';
import type { SettingsService } from '../../services/settings-service';
import type { Handlers } from '../dispatcher';

export function appHandlers({ appInfo, settings }: { appInfo: AppInfoService; settings: SettingsService }): Pick<Handlers, keyof typeof appContract.invoke> {
  return {
    'app:get-info': () => appInfo.info(),
    'settings:get': () => settings.get(),
    'settings:update': (patch) => settings.update(patch),
  };
}
