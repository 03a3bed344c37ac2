// Hides the password in a store URL, for logs, descriptions and error messages.

export function maskUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '****';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^@/]*):[^@/]*@/, '//$1:****@');
  }
}
