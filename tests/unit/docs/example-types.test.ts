import path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { API_EXAMPLES, SCRIPT_EXAMPLES, exampleCode, type ExampleId, type ScriptId } from "@/lib/docs/examples";

// The TypeScript tab of every docs example type-checks (strict) against the client in
// clients/typescript, so an example cannot call a method or read a field the client lacks.
test("every TypeScript example type-checks against @pm-benchmarks/client", () => {
  const ids = [...Object.keys(API_EXAMPLES), ...Object.keys(SCRIPT_EXAMPLES)] as Array<ExampleId | ScriptId>;
  const root = path.resolve("tests/unit/docs/.examples");
  const sources = new Map(ids.map((id) => [path.join(root, `${id}.mts`), `${exampleCode(id).ts}\nexport {};\n`]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    baseUrl: path.resolve("."),
    paths: { "@pm-benchmarks/client": ["clients/typescript/src/index.ts"] },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (file) => sources.get(path.resolve(file)) ?? readFile(file);
  host.fileExists = (file) => sources.has(path.resolve(file)) || fileExists(file);
  const program = ts.createProgram([...sources.keys()], options, host);
  const problems = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
  expect(problems).toEqual([]);
}, 120_000);
