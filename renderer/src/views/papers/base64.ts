// Bytes to and from base64 for the engine's JSON frames (uploads, a paper's PDF), in the browser.

/** Reads a dropped or picked file as base64 (FileReader's data URL, without its prefix). */
export function fileToBase64(file: Blob, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => {
      reject(reader.error ?? new FileReadFailedError(name));
    };
    reader.readAsDataURL(file);
  });
}

export class FileReadFailedError extends Error {
  override readonly name = 'FileReadFailedError';
  constructor(fileName: string) {
    super(`Could not read '${fileName}' from disk; check that it still exists and try again`);
  }
}

export function bytesFromBase64(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
