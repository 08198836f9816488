import { parseVariants, type OpeningVariant } from './variants.js';
import type { Updateable } from 'kysely';
import { isoNow } from '../platform/clock.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import type { CustomerProfilesTable, Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import * as repo from '../profile-records/profiles.repository.js';
import type { CreateProfileInput, ProfileView, UpdateProfileInput } from './profiles.schemas.js';

/** Every organization starts with it and a lead created without a profile gets it, so it cannot go away. */
export const DEFAULT_PROFILE = 'default';

export const profileNotFound = (name: string) => new NotFound('CustomerProfile', 'name', name);

const duplicateName = (name: string) => new DomainError('duplicate_profile', { name });

function toProfileView(row: repo.ProfileRow): ProfileView {
  const questions: unknown = JSON.parse(row.questions);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    openingMessage: row.opening_message,
    openingVariants: parseVariants(row.opening_variants),
    questions: Array.isArray(questions) ? questions.map(String) : [],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    notifications: parseNotifications(row.notifications),
  };
}

/** The profile's plain-English notification conditions (0030): [] when none. */
export function parseNotifications(text: string | null): { name: string; condition: string }[] {
  if (!text) return [];
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? (value as { name: string; condition: string }[]) : [];
}

export async function requireProfile(
  db: Db,
  organizationId: string,
  name: string,
  lock: 'update' | 'share' | false = false,
): Promise<repo.ProfileRow> {
  const row = await repo.findProfileByName(db, organizationId, name, lock);
  if (!row) throw profileNotFound(name);
  return row;
}

export async function listProfiles(deps: Deps, organizationId: string): Promise<ProfileView[]> {
  return (await repo.listProfiles(deps.db, organizationId)).map(toProfileView);
}

export async function getProfile(deps: Deps, organizationId: string, name: string): Promise<ProfileView> {
  return toProfileView(await requireProfile(deps.db, organizationId, name));
}

export async function createProfile(
  deps: Deps,
  organizationId: string,
  input: CreateProfileInput,
): Promise<ProfileView> {
  // The check gives the clear answer; the unique constraint still decides a race between two creates.
  if (await repo.findProfileByName(deps.db, organizationId, input.name)) throw duplicateName(input.name);
  const at = isoNow(deps.clock);
  const row: repo.ProfileRow = {
    organization_id: organizationId,
    id: newId(),
    name: input.name,
    description: input.description ?? null,
    instructions: input.instructions ?? null,
    opening_message: input.openingMessage ?? null,
    questions: JSON.stringify(input.questions ?? []),
    created_at: at,
    updated_at: at,
    notifications: input.notifications?.length ? JSON.stringify(input.notifications) : null,
    opening_variants: variantsColumn(input.openingVariants),
  };
  try {
    await repo.insertProfile(deps.db, organizationId, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateName(input.name);
    throw err;
  }
  return toProfileView(row);
}

export async function updateProfile(
  deps: Deps,
  organizationId: string,
  name: string,
  input: UpdateProfileInput,
): Promise<ProfileView> {
  return deps.db.transaction().execute(async (trx) => {
    await requireProfile(trx, organizationId, name, 'update');
    const patch: Updateable<CustomerProfilesTable> = { updated_at: isoNow(deps.clock) };
    if (input.description !== undefined) patch.description = input.description;
    if (input.instructions !== undefined) patch.instructions = input.instructions;
    if (input.openingMessage !== undefined) patch.opening_message = input.openingMessage;
    if (input.openingVariants !== undefined) patch.opening_variants = variantsColumn(input.openingVariants);
    if (input.questions !== undefined) patch.questions = JSON.stringify(input.questions);
    if (input.notifications !== undefined)
      patch.notifications = input.notifications.length ? JSON.stringify(input.notifications) : null;
    await repo.updateProfile(trx, organizationId, name, patch);
    return toProfileView(await requireProfile(trx, organizationId, name));
  });
}

export async function deleteProfile(deps: Deps, organizationId: string, name: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    // Locked first: a concurrent switch to this profile (which takes a share lock) either commits
    // before the count below sees its lead, or finds the profile gone.
    await requireProfile(trx, organizationId, name, 'update');
    if (name === DEFAULT_PROFILE) {
      throw new DomainError('default_profile');
    }
    const inUse = await repo.countLeadsUsingProfile(trx, organizationId, name);
    if (inUse > 0) {
      throw new DomainError('profile_in_use', { name, leads: inUse });
    }
    await repo.deleteProfile(trx, organizationId, name);
  });
}

/** Variants as stored: JSON, or null for none; names must be unique (a 400 otherwise). */
function variantsColumn(variants: readonly OpeningVariant[] | null | undefined): string | null {
  if (!variants || variants.length === 0) return null;
  const names = new Set(variants.map((v) => v.name));
  if (names.size !== variants.length) throw new DomainError('duplicate_variant');
  return JSON.stringify(variants.map((v) => ({ name: v.name, text: v.text, weight: v.weight })));
}
