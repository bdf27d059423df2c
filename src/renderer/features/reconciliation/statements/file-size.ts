// How big a statement file is, as the import card says it, and why one cannot be imported.
/** A file's size as a person reads it: bytes under a KiB (a small file is not "0 KB"), else KB or MB. */
export function fileSizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString('en')} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024).toLocaleString('en')} KB`;
  return `${(bytes / (1024 * 1024)).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
}

/** Why a picked file is not uploaded (empty, or over the limit), in a person's words; null when it may be. */
export function fileRefusal(file: { name: string; size: number }, limitBytes: number): string | null {
  if (file.size === 0) return `${file.name} is empty: there is nothing in it to import. Export the statement again, or pick another file.`;
  if (file.size <= limitBytes) return null;
  const [size, limit] = [fileSizeText(file.size), fileSizeText(limitBytes)];
  // A file a few bytes over reads as the limit itself once rounded: "200 MB: at most 200 MB" would say nothing.
  return `${file.name} is ${size === limit ? `just over ${limit}` : size}: a statement file may be at most ${limit}. Split it by date and import the parts.`;
}
