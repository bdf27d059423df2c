// Profiles (where the gateway is and who we are there) and their credentials. Secrets cross this
// boundary in one direction only: the renderer may send a merchant-token or a private key to be
// stored, and only ever gets back "set / not set" and a fingerprint.
import { z } from 'zod';
import { environmentKindSchema, noInput } from './app';
import { notificationReachSchema } from './reviews';

const trimmed = (max: number) => z.string().trim().min(1, 'Required.').max(max, `At most ${max} characters.`);

const httpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'Must be an http(s) address, e.g. https://pay.example.com/api/v2');

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
  payoutsEnabled: z.boolean(),
  credentials: z.object({ merchantToken: credentialStateSchema, privateKey: credentialStateSchema }),
});
export type ProfileView = z.infer<typeof profileViewSchema>;

export const profileInputSchema = z
  .object({
    name: trimmed(80),
    environment: environmentKindSchema,
    /** Sandbox: the {sandbox_url} ending in /api/; live: the base URL ending in /api/v2. Ignored for local. */
    baseUrl: httpUrl.optional(),
    merchantId: trimmed(120).optional(),
    merchantSiteId: trimmed(120).optional(),
    notificationPublicUrl: httpUrl.nullable().optional(),
  })
  .strict();
export type ProfileInput = z.infer<typeof profileInputSchema>;

export const profileUpdateSchema = z
  .object({ id: z.string().min(1), patch: profileInputSchema.partial().strict() })
  .strict();

export const profileIdSchema = z.object({ id: z.string().min(1) }).strict();

export const publicKeyExportSchema = z.object({
  kid: z.string(),
  jwk: z.record(z.string(), z.unknown()),
  pem: z.string(),
  fingerprint: z.string(),
  registeredWithEmulator: z.boolean(),
});

/** The merchant-token travels in an HTTP header: printable ASCII only (RFC 9110 field values). */
export function isSendableMerchantToken(token: string): boolean {
  return /^[\x20-\x7E]+$/.test(token);
}

export const MERCHANT_TOKEN_CHARSET_MESSAGE = 'A merchant-token is printable ASCII (letters, digits, punctuation): it is sent as an HTTP header.';

export const profilesContract = {
  invoke: {
    'profiles:list': { input: noInput, output: z.array(profileViewSchema) },
    'profiles:create': { input: profileInputSchema, output: profileViewSchema },
    'profiles:update': { input: profileUpdateSchema, output: profileViewSchema },
    'profiles:delete': { input: profileIdSchema, output: z.object({ deleted: z.boolean() }) },
    'profiles:activate': { input: profileIdSchema, output: profileViewSchema },
    'credentials:set-merchant-token': {
      input: z
        .object({
          profileId: z.string().min(1),
          token: z
            .string()
            .trim()
            .min(8, 'A merchant-token is at least 8 characters.')
            .max(4096)
            .refine(isSendableMerchantToken, MERCHANT_TOKEN_CHARSET_MESSAGE),
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
