// The profile rules main enforces and the form says: every example a refusal gives passes the rule
// it names (a refusal once said "e.g. https://pay.example.com/api/v2" of a sandbox address that
// must end in /api/), names are one name whatever their case, spacing or Unicode form, and every
// sentence about credentials exists for both custodies.
import { describe, expect, it } from 'vitest';
import { CUSTODY_WORDS } from '../../../src/shared/credential-custody';
import { gatewayBaseUrl, merchantTokenProblem, notificationUrlProblem, profileNameKey, profileNameProblem } from '../../../src/shared/profile-rules';

const example = (problem: string) => /e\.g\. (\S+)$/.exec(problem)?.[1];

describe('profile rules', () => {
  it('gives, with each refused address, an example that the same rule accepts', () => {
    const refused = { sandbox: ['sandbox.example.com/api/', 'https://sandbox.example.com/v1', 'ftp://x/api/'], live: ['pay.example.com/api/v2', 'http://pay.example.com/api/v2', 'https://pay.example.com/api/'] } as const;
    for (const environment of ['sandbox', 'live'] as const) {
      for (const entered of refused[environment]) {
        const answer = gatewayBaseUrl(environment, entered);
        expect('problem' in answer, `${environment} ${entered}`).toBe(true);
        const given = example((answer as { problem: string }).problem);
        expect(given, (answer as { problem: string }).problem).toBeDefined();
        expect(gatewayBaseUrl(environment, given!)).toEqual({ baseUrl: expect.stringMatching(/^https:\/\/.*\/api\/v2$/) });
      }
    }
    const live = notificationUrlProblem('live', 'http://notify.example.com/')!;
    expect(notificationUrlProblem('live', example(live)!)).toBeNull();
    expect(notificationUrlProblem('sandbox', 'http://notify.example.com/')).toBeNull();
  });

  it('takes names that differ only in case, spacing or Unicode form for one name, and keeps the emulator\'s for the emulator', () => {
    expect(new Set(['Shop EU', 'shop eu', ' SHOP\tEU ', 'ShopEU', 'Ｓｈｏｐ ＥＵ']).size).toBe(5);
    expect(new Set(['Shop EU', 'shop eu', ' SHOP\tEU ', 'ShopEU', 'Ｓｈｏｐ ＥＵ'].map(profileNameKey)).size).toBe(1);
    const others = [{ id: 'a', name: 'Shop EU' }];
    expect(profileNameProblem('shopeu', 'sandbox', others)).toMatch(/already named “Shop EU”/);
    expect(profileNameProblem('shopeu', 'sandbox', others, 'a')).toBeNull();
    expect(profileNameProblem('local Emulator', 'live', [])).toMatch(/embedded emulator's name/);
    expect(profileNameProblem('Local emulator', 'local', [])).toBeNull();
  });

  it('drops the spaces around a merchant-token and refuses one inside', () => {
    expect(merchantTokenProblem('  tok_abcdef12 \n')).toBeNull();
    for (const token of ['tok abcdef12', 'tok\tabcdef12', 'tok\nabcdef12']) expect(merchantTokenProblem(token), JSON.stringify(token)).toMatch(/no spaces or line breaks inside/);
  });

  it('words each credential sentence for the keychain and for the team server, each true where it is shown', () => {
    expect(Object.keys(CUSTODY_WORDS.keychain).sort()).toEqual(Object.keys(CUSTODY_WORDS.server).sort());
    for (const sentence of Object.values(CUSTODY_WORDS.server)) expect(sentence).not.toMatch(/keychain/i);
    for (const [key, sentence] of Object.entries(CUSTODY_WORDS.keychain)) if (key !== 'storeLabel') expect(sentence, key).toMatch(/OS keychain/);
  });
});
