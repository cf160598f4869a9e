// Validates KEDA and Prometheus-operator resources with the JSON-schema validators that the npm
// packages @kubernetes-models/keda and @kubernetes-models/prometheus-operator ship (generated
// from the upstream CRDs).
//
// usage:  node validate_crds.mjs <node_modules dir>  < resources.json
// stdin:  a JSON array of Kubernetes resources
// stdout: a JSON array, one entry per resource: {"ok": true} | {"ok": false, "error": "..."}
// Exit code 0 when the input could be read, whatever the validation results; 2 otherwise.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const MODELS = {
  "keda.sh": "@kubernetes-models/keda",
  "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
};

const nodeModules = process.argv[2];
if (!nodeModules) {
  process.stderr.write("usage: node validate_crds.mjs <node_modules dir>\n");
  process.exit(2);
}

// The packages are ESM with "import"-only exports, which NODE_PATH does not reach: import the
// module files by path instead.
async function modelClass(resource) {
  const [group, version] = String(resource.apiVersion || "").split("/");
  const pkg = MODELS[group];
  if (!pkg || !version) {
    throw new Error(`no validator for apiVersion ${resource.apiVersion}`);
  }
  const file = join(nodeModules, pkg, group, version, "index.js");
  const module = await import(pathToFileURL(file).href);
  const cls = module[resource.kind];
  if (!cls) {
    throw new Error(`no validator for kind ${resource.kind} in ${resource.apiVersion}`);
  }
  return cls;
}

async function validate(resource) {
  try {
    const Model = await modelClass(resource);
    new Model(resource).validate();
    return { ok: true };
  } catch (error) {
    return { ok: false, error: String(error && error.message ? error.message : error) };
  }
}

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) {
  input += chunk;
}
let resources;
try {
  resources = JSON.parse(input);
} catch (error) {
  process.stderr.write(`cannot parse input: ${error.message}\n`);
  process.exit(2);
}
const results = [];
for (const resource of resources) {
  results.push(await validate(resource));
}
process.stdout.write(JSON.stringify(results));
