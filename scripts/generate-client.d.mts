/** Types of scripts/generate-client.mjs, for the test that checks the checked-in client types. */
export declare const SCHEMA_FILE: string;
export declare function openApiDocument(): Promise<Record<string, unknown>>;
export declare function forClient(doc: Record<string, unknown>): Record<string, unknown>;
export declare function schemaSource(doc: Record<string, unknown>): Promise<string>;
