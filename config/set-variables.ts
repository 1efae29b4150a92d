/** The environment without its empty variables: `FOO=` means unset, as shells and compose files often produce it. */
export function setVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') result[key] = value;
  }
  return result;
}
