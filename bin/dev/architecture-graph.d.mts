export const BEGIN: string;
export const END: string;
export function folderOf(path: string): string | null;
export function folderEdges(): Promise<Map<string, Set<string>>>;
export function mutualPairs(edges: Map<string, Set<string>>): string[];
export function mermaid(edges: Map<string, Set<string>>): string;
export function withPicture(doc: string, picture: string): string;
