// Minimal typings for the parts of saxon-js 2.7 the engine uses (the package ships none).
declare module 'saxon-js' {
  interface TransformOptions {
    stylesheetInternal?: unknown;
    stylesheetText?: string;
    stylesheetFileName?: string;
    sourceText?: string;
    sourceNode?: unknown;
    destination?: 'raw' | 'serialized' | 'document' | 'application' | 'file' | 'stdout';
    stylesheetParams?: Record<string, unknown>;
    [k: string]: unknown;
  }
  interface TransformResult { principalResult: unknown; [k: string]: unknown }
  const SaxonJS: {
    transform(options: TransformOptions, mode: 'sync'): TransformResult;
    transform(options: TransformOptions, mode?: 'async'): Promise<TransformResult>;
    XPath: { evaluate(xpath: string, context?: unknown, options?: Record<string, unknown>): unknown };
    getResource(options: Record<string, unknown>): Promise<unknown>;
    getProcessorInfo(): Record<string, unknown>;
  };
  export default SaxonJS;
}
