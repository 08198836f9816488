import type { Db } from '../platform/db/schema.js';

export interface Availability {
  timeZone: string;
  weeklyHours: Partial<Record<string, string[][]>>;
  updatedAt: string;
}

/** A user's weekly hours for the embedded calendar (user_availability), or undefined: the calendar's own hours apply. */
export async function findAvailability(
  db: Db,
  organizationId: string,
  userId: string,
): Promise<Availability | undefined> {
  const row = await db
    .selectFrom('user_availability')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    timeZone: row.time_zone,
    weeklyHours: JSON.parse(row.weekly_hours) as Availability['weeklyHours'],
    updatedAt: row.updated_at,
  };
}

export async function putAvailability(db: Db, organizationId: string, userId: string, a: Availability): Promise<void> {
  const values = { time_zone: a.timeZone, weekly_hours: JSON.stringify(a.weeklyHours), updated_at: a.updatedAt };
  await db
    .insertInto('user_availability')
    .values({ organization_id: organizationId, user_id: userId, ...values })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doUpdateSet(values))
    .execute();
}
