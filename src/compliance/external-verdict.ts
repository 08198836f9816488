/** What the gate needs of an External Compliance Check's outcome (compliance/external-check.ts asks it). */
export interface ExternalVerdict {
  allowed: boolean;
  /** Shown on a blocked message; for an allowed one, why (e.g. it failed open). */
  reason: string;
}
