import { CUSTODY_WORDS, type CustodyWords } from '../../../shared/credential-custody';
import { useApp } from '../../stores/context';

/** How this installation's screens say where credentials go: the OS keychain on a desk, sealed on a team server. */
export function useCustodyWords(): CustodyWords {
  const custody = useApp((state) => state.info?.keychain.custody);
  return CUSTODY_WORDS[custody ?? 'keychain'];
}
