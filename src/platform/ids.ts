import { v7 } from 'uuid';

/** Time-ordered UUIDv7: keyset pagination by id is creation order, and inserts stay index-friendly. */
export const newId = (): string => v7();
