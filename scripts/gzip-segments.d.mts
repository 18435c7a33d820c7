export declare const available: boolean;
export declare function gzipSegments(chunks: Uint8Array[]): Buffer[];
export declare function crc32Combine(crcA: number, crcB: number, lengthB: number): number;
export declare function acceptsGzip(header: string | string[] | undefined): boolean;
