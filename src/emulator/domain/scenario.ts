// Scenario by e-mail (PRODUCT.md, fixed interface): "ana+s302@example.com" ends with 302,
// "+sP200" / "+sC405" on a payout's customer.email. Any 3-digit pay-in code and any P/C
// payout code is honoured, including codes the catalogue does not know, so clients can be
// tested on unknown codes too.

export function payinScenario(email: string): number | null {
  const m = /\+s(\d{3})(?=[+@])/i.exec(localPart(email));
  return m ? Number(m[1]) : null;
}

export function payoutScenario(email: string): string | null {
  const m = /\+s([PC]\d{3})(?=[+@])/i.exec(localPart(email));
  return m ? (m[1] as string).toUpperCase() : null;
}

/** The local part plus the "@", so the lookahead above can end a tag at "@". */
function localPart(email: string): string {
  const at = email.lastIndexOf('@');
  return at === -1 ? `${email}@` : email.slice(0, at + 1);
}
