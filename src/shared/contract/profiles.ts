// Profiles (where the gateway is and who we are there) and their credentials. Secrets cross this
// boundary in one direction only: the renderer may send a merchant-token or a private key to be
// stored, and only ever gets back "set / not set" and a fingerprint.
import { z } from 'zod';
import { environmentKindSchema, noInput } from './app';
import { notificationReachSchema } from './reviews';
import { isSendableMerchantToken, MERCHANT_TOKEN_CHARSET_MESSAGE, merchantTokenProblem } from '../profile-rules';

export { isSendableMerchantToken, MERCHANT_TOKEN_CHARSET_MESSAGE };

const trimmed = (max: number) => z.string().trim().min(1, 'Required.').max(max, `At most ${max} characters.`);

/** An address as typed; what it must be depends on the environment, so ProfileService checks it (shared/profile-rules.ts). */
const address = z.string().trim().max(2048, 'At most 2048 characters.');

export const credentialStateSchema = z.object({
  set: z.boolean(),
  /** Non-reversible: first 16 hex digits of SHA-256 (token) or the RFC 7638 thumbprint (key). */
  fingerprint: z.string().nullable(),
});

export const profileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  environment: environmentKindSchema,
  baseUrl: z.string(),
  merchantId: z.string(),
  merchantSiteId: z.string(),
  kid: z.string().nullable(),
  notificationPublicUrl: z.string().nullable(),
  /** Where the gateway must post notifications for this profile (public URL if set, else the listener). */
  notificationUrl: z.string(),
  /** Whether the gateway can post to notificationUrl (a sandbox or live gateway cannot reach a loopback address). */
  notifications: notificationReachSchema,
  isActive: z.boolean(),
  /** When it was archived (hidden from the switcher and pickers; its transactions stay), or null. */
  archivedAt: z.string().nullable(),
  payoutsEnabled: z.boolean(),
  credentials: z.object({ merchantToken: credentialStateSchema, privateKey: credentialStateSchema }),
});
export type ProfileView = z.infer<typeof profileViewSchema>;

export const profileInputSchema = z
  .object({
    name: trimmed(80),
    environment: environmentKindSchema,
    /** Sandbox: the {sandbox_url} ending in /api/; live: the base URL ending in /api/v2. Ignored for local. */
    baseUrl: address.optional(),
    merchantId: trimmed(120).optional(),
    merchantSiteId: trimmed(120).optional(),
    notificationPublicUrl: address.nullable().optional(),
  })
  .strict();
export type ProfileInput = z.infer<typeof profileInputSchema>;

/** `confirmed`: true once the person has confirmed that the active profile they edit becomes live; main refuses that change without it. */
export const profileUpdateSchema = z
  .object({ id: z.string().min(1), patch: profileInputSchema.partial().strict(), confirmed: z.boolean().optional() })
  .strict();

export const profileIdSchema = z.object({ id: z.string().min(1) }).strict();

/** `confirmed`: true once the person has confirmed a switch to a live profile; main refuses that switch without it. */
export const profileActivateSchema = z.object({ id: z.string().min(1), confirmed: z.boolean().optional() }).strict();

export const publicKeyExportSchema = z.object({
  kid: z.string(),
  jwk: z.record(z.string(), z.unknown()),
  pem: z.string(),
  fingerprint: z.string(),
  registeredWithEmulator: z.boolean(),
});

export const profilesContract = {
  invoke: {
    'profiles:list': { input: noInput, output: z.array(profileViewSchema) },
    'profiles:create': { input: profileInputSchema, output: profileViewSchema },
    'profiles:update': { input: profileUpdateSchema, output: profileViewSchema },
    'profiles:delete': { input: profileIdSchema, output: z.object({ deleted: z.boolean() }) },
    'profiles:activate': { input: profileActivateSchema, output: profileViewSchema },
    'profiles:archive': { input: profileIdSchema, output: profileViewSchema },
    'profiles:restore': { input: profileIdSchema, output: profileViewSchema },
    'credentials:set-merchant-token': {
      input: z
        .object({
          profileId: z.string().min(1),
          token: z
            .string()
            .trim()
            .max(4096)
            .superRefine((token, context) => {
              const problem = merchantTokenProblem(token);
              if (problem) context.addIssue({ code: 'custom', message: problem });
            }),
        })
        .strict(),
      output: profileViewSchema,
    },
    'credentials:clear-merchant-token': { input: z.object({ profileId: z.string().min(1) }).strict(), output: profileViewSchema },
    'credentials:generate-key': {
      input: z.object({ profileId: z.string().min(1), kid: trimmed(120).optional() }).strict(),
      output: publicKeyExportSchema,
    },
    'credentials:import-key': {
      input: z.object({ profileId: z.string().min(1), privateKey: z.string().trim().min(1).max(16_384), kid: trimmed(120).optional() }).strict(),
      output: publicKeyExportSchema,
    },
    'credentials:export-public-key': { input: z.object({ profileId: z.string().min(1) }).strict(), output: publicKeyExportSchema },
  },
  push: {
    'profiles:profiles-changed': z.array(profileViewSchema),
  },
} as const;
