import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { findLead } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import { DomainError, NotFound, leadNotFound } from '../platform/errors.js';
import { checkTimeZone } from '../platform/time-zone.js';
import { findUser } from '../users/users.repository.js';
import { toAppointmentView } from './appointments.mapper.js';
import {
  findAppointment,
  listAppointments,
  listLeadAppointments,
  listReminders,
  type AppointmentRow,
} from './appointments.repository.js';
import {
  Appointment,
  AppointmentIdParams,
  AvailabilityBody,
  AvailabilityReply,
  BookBody,
  CancelBody,
  ListQuery,
  RescheduleBody,
  SlotsQuery,
  SlotsReply,
  UserIdParams,
} from './appointments.schemas.js';
import {
  bookAppointment,
  cancelAppointment,
  findSlots,
  markNoShow,
  rescheduleAppointment,
} from './appointments.service.js';
import { findAvailability, putAvailability } from './availability.repository.js';

export const appointmentRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['appointments'];
    const view = async (organizationId: string, a: AppointmentRow) =>
      toAppointmentView(a, await listReminders(deps.db, organizationId, a.id));
    const views = async (organizationId: string, rows: AppointmentRow[]) =>
      Promise.all(rows.map((a) => view(organizationId, a)));

    app.post(
      '/leads/:leadId/appointments',
      {
        schema: {
          tags,
          summary: 'Book an appointment for the lead (409 when the slot is taken)',
          params: LeadIdParams,
          body: BookBody,
          response: withErrors(
            { 200: Appointment },
            'slot_taken',
            'calendar_unavailable',
            'lead_has_no_email',
            'unknown_owner',
            'invalid_start',
            'start_in_past',
          ),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        const a = await bookAppointment(deps, org, req.params.leadId, {
          start: new Date(req.body.start),
          durationMinutes: req.body.durationMinutes,
          ownerId: req.body.ownerId,
          notes: req.body.notes,
        });
        return view(org, a);
      },
    );

    app.get(
      '/leads/:leadId/appointments',
      {
        schema: {
          tags,
          summary: "The lead's appointments, by start",
          params: LeadIdParams,
          response: withErrors({ 200: Type.Object({ appointments: Type.Array(Appointment) }) }),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        if (!(await findLead(deps.db, org, req.params.leadId))) throw leadNotFound(req.params.leadId);
        return { appointments: await views(org, await listLeadAppointments(deps.db, org, req.params.leadId)) };
      },
    );

    app.get(
      '/leads/:leadId/appointmentSlots',
      {
        schema: {
          tags,
          summary: "Free slots on the calendar, labelled in the lead's zone and language",
          params: LeadIdParams,
          querystring: SlotsQuery,
          response: withErrors({ 200: SlotsReply }, 'window_too_long', 'calendar_unavailable'),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        const lead = await findLead(deps.db, org, req.params.leadId);
        if (!lead) throw leadNotFound(req.params.leadId);
        const q = req.query;
        return findSlots(deps, org, lead, {
          from: q.from ? new Date(q.from) : undefined,
          to: q.to ? new Date(q.to) : undefined,
          ownerId: q.ownerId,
          limit: 50,
        });
      },
    );

    app.get(
      '/appointments',
      {
        schema: {
          tags,
          summary: 'Appointments starting in [from, to), optionally of one owner',
          querystring: ListQuery,
          response: withErrors({ 200: Type.Object({ appointments: Type.Array(Appointment) }) }, 'invalid_window'),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        const from = new Date(req.query.from);
        const to = new Date(req.query.to);
        if (!(to > from)) throw new DomainError('invalid_window');
        return {
          appointments: await views(
            org,
            await listAppointments(deps.db, org, {
              from: from.toISOString(),
              to: to.toISOString(),
              ownerId: req.query.ownerId,
            }),
          ),
        };
      },
    );

    app.get(
      '/appointments/:id',
      {
        schema: {
          tags,
          summary: 'One appointment',
          params: AppointmentIdParams,
          response: withErrors({ 200: Appointment }),
        },
      },
      async (req) => {
        const a = await findAppointment(deps.db, req.auth.organizationId, req.params.id);
        if (!a) throw new NotFound('Appointment', 'id', req.params.id);
        return view(req.auth.organizationId, a);
      },
    );

    app.patch(
      '/appointments/:id',
      {
        schema: {
          tags,
          summary: 'Reschedule an appointment (409 when the new slot is taken)',
          params: AppointmentIdParams,
          body: RescheduleBody,
          response: withErrors(
            { 200: Appointment },
            'appointment_not_booked',
            'slot_taken',
            'calendar_unavailable',
            'invalid_start',
            'start_in_past',
          ),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        return view(
          org,
          await rescheduleAppointment(deps, org, req.params.id, {
            start: new Date(req.body.start),
            durationMinutes: req.body.durationMinutes,
            notes: req.body.notes,
          }),
        );
      },
    );

    app.post(
      '/appointments/:id/cancel',
      {
        schema: {
          tags,
          summary: 'Cancel an appointment',
          params: AppointmentIdParams,
          body: CancelBody,
          response: withErrors({ 200: Appointment }, 'appointment_not_booked', 'calendar_unavailable'),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        return view(org, await cancelAppointment(deps, org, req.params.id, req.body?.reason ?? null));
      },
    );

    app.post(
      '/appointments/:id/no-show',
      {
        schema: {
          tags,
          summary: 'Mark an appointment as a no-show: the lead gets a follow-up (through the gate)',
          params: AppointmentIdParams,
          response: withErrors({ 200: Appointment }, 'appointment_not_booked', 'not_started'),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        return view(org, await markNoShow(deps, org, req.params.id));
      },
    );

    app.put(
      '/users/:userId/availability',
      {
        schema: {
          tags,
          summary: "A user's weekly hours for the embedded calendar",
          params: UserIdParams,
          body: AvailabilityBody,
          response: withErrors({ 200: AvailabilityReply }, 'invalid_hours', 'invalid_time_zone'),
        },
      },
      async (req) => {
        const org = req.auth.organizationId;
        if (!(await findUser(deps.db, org, req.params.userId))) throw new NotFound('User', 'id', req.params.userId);
        checkTimeZone(req.body.timeZone);
        for (const ranges of Object.values(req.body.weeklyHours) as (string[][] | undefined)[]) {
          for (const [s = '', e = ''] of ranges ?? [])
            if (s >= e) throw new DomainError('invalid_hours', { field: 'weeklyHours' });
        }
        const updatedAt = deps.clock.now().toISOString();
        await putAvailability(deps.db, org, req.params.userId, {
          timeZone: req.body.timeZone,
          weeklyHours: req.body.weeklyHours,
          updatedAt,
        });
        return { userId: req.params.userId, timeZone: req.body.timeZone, weeklyHours: req.body.weeklyHours, updatedAt };
      },
    );

    app.get(
      '/users/:userId/availability',
      {
        schema: {
          tags,
          summary: "A user's weekly hours for the embedded calendar",
          params: UserIdParams,
          response: withErrors({ 200: AvailabilityReply }),
        },
      },
      async (req) => {
        const a = await findAvailability(deps.db, req.auth.organizationId, req.params.userId);
        if (!a) throw new NotFound('User', 'id', req.params.userId);
        return { userId: req.params.userId, ...a };
      },
    );
  };
