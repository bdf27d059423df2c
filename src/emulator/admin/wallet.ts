// Admin routes of the payout wallet: balances, the balance check switch, and top-ups.
import { numberText } from '../../shared/json';
import { checkAmount } from '../../shared/money';
import { CRYPTO_AMOUNT_SCALE } from '../../shared/spec/methods';
import { CHECKS } from '../../shared/spec/field-checks';
import type { PayoutWallet } from '../domain/wallet';
import type { Router } from '../http/router';
import type { Reply, Request } from '../http/types';
import { adminBody, adminError, adminReply } from './json-body';

const view = (wallet: PayoutWallet): Record<string, unknown> => ({ ...wallet.settings, wallets: wallet.wallets() });

function setSettings(wallet: PayoutWallet) {
  return (req: Request): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const { enforce_balance, ...rest } = parsed.body;
    if (Object.keys(rest).length > 0) return adminError(400, `unknown keys: ${Object.keys(rest).join(', ')} (use enforce_balance)`);
    if (enforce_balance !== undefined && typeof enforce_balance !== 'boolean') return adminError(400, 'enforce_balance must be a boolean');
    if (enforce_balance !== undefined) wallet.update({ enforce_balance });
    return adminReply(200, view(wallet));
  };
}

function topUp(wallet: PayoutWallet) {
  return (req: Request): Reply => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const { currency, amount, ...rest } = parsed.body;
    if (Object.keys(rest).length > 0) return adminError(400, `unknown keys: ${Object.keys(rest).join(', ')} (use currency, amount)`);
    if (typeof currency !== 'string' || CHECKS.currency(currency, { parent: {}, method: undefined, siteId: undefined, values: undefined, now: 0 }) !== null) {
      return adminError(400, 'currency must be an ISO 4217 code such as EUR');
    }
    // As a payout's amount: a number (or decimal text) above 0, up to crypto's 10 decimals.
    const checked = checkAmount(typeof amount === 'string' ? amount : numberText(amount), CRYPTO_AMOUNT_SCALE);
    if (!checked.ok) return adminError(400, `amount ${checked.message}`);
    return adminReply(200, wallet.topUp(currency, checked.value));
  };
}

export function registerWalletAdmin(router: Router, prefix: string, wallet: PayoutWallet): void {
  router
    .add('GET', `${prefix}/wallet`, () => adminReply(200, view(wallet)))
    .add('PUT', `${prefix}/wallet`, setSettings(wallet))
    .add('POST', `${prefix}/wallet`, setSettings(wallet))
    .add('POST', `${prefix}/wallet/topups`, topUp(wallet));
}
