// `${VAR}` and `${VAR:-default}` in YAML string values. Interpolation runs on parsed scalars, not
// on the file text, so a secret holding YAML syntax (`: `, `#`, quotes) cannot change the document.

const pattern = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Interpolation = { value: string; unset: string[] };

export function interpolateEnv(text: string, env: NodeJS.ProcessEnv): Interpolation {
  const unset: string[] = [];
  const value = text.replace(pattern, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    unset.push(name);
    return '';
  });
  return { value, unset };
}
