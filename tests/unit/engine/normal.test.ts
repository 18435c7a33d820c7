import { describe, expect, test } from "vitest";
import { diffusionVariance, linearVariance, varianceToResolution } from "@/lib/engine/volatility/diffusion-share";
import { bivariateNormalCdf, normCdf, normInv } from "@/lib/engine/volatility/normal";

describe("standard normal", () => {
  test.each([
    [0, 0.5],
    [0.5, 0.691462461274013],
    [1.96, 0.9750021048517795],
    [-3, 0.0013498980316300946],
    [-8, 6.22096057427178e-16],
  ])("Phi(%d) = %d", (z, expected) => {
    expect(Math.abs(normCdf(z) - expected) / expected).toBeLessThan(1e-13);
  });

  test.each([1e-12, 1e-6, 0.001, 0.02425, 0.1, 0.3, 0.5, 0.77, 0.975, 0.999999])("Phi(Phi^-1(%d)) round-trips", (p) => {
    expect(Math.abs(normCdf(normInv(p)) - p) / p).toBeLessThan(1e-13);
  });
});

describe("bivariate normal CDF (Genz / Drezner-Wesolowsky)", () => {
  // reference values from 40-digit quadrature
  test.each([
    [0, 0, 0.5, 1 / 3],
    [0.3, -0.2, 0.1, 0.2748708575521976],
    [-1, 2, 0.8, 0.15865520657170187],
    [1.5, 1.5, 0.95, 0.9169398022579285],
    [-2, -1, -0.5, 0.00014685976601425815],
    [0.5, 0.7, -0.95, 0.4495010192516149],
    [1, 1, 0.999, 0.8370276880723563],
  ])("Phi2(%d, %d; %d) = %d", (h, k, r, expected) => {
    expect(bivariateNormalCdf(h, k, r)).toBeCloseTo(expected, 14);
  });

  test.each([-0.9, -0.3, 0, 0.2, 0.6, 0.93, 0.99])("Phi2(0, 0; %d) = 1/4 + asin(rho)/(2 pi)", (r) => {
    expect(bivariateNormalCdf(0, 0, r)).toBeCloseTo(0.25 + Math.asin(r) / (2 * Math.PI), 14);
  });

  test.each([
    [0.4, -1.1],
    [2, 0.3],
  ])("Phi2(%d, %d; 0) = Phi(h) Phi(k)", (h, k) => {
    expect(bivariateNormalCdf(h, k, 0)).toBeCloseTo(normCdf(h) * normCdf(k), 15);
  });
});

describe("variance within a tenor (METHODOLOGY-NOTES table)", () => {
  test.each([
    // p, rho, Var_h, sigma pts, linear sigma pts
    [0.5, 0.5, 0.083333, 28.87, 35.36],
    [0.5, 0.25, 0.040215, 20.05, 25.0],
    [0.5, 0.1, 0.015942, 12.63, 15.81],
    [0.2, 0.25, 0.021396, null, 20.0],
    [0.3, 0.25, 0.031471, null, null],
  ])("p = %d, rho = %d: Var_h = %d", (p, rho, varH, sigma, linearSigma) => {
    const viaGenz = bivariateNormalCdf(normInv(p), normInv(p), rho) - p * p;
    expect(diffusionVariance(p, rho)).toBeCloseTo(varH, 6);
    expect(viaGenz).toBeCloseTo(varH, 6);
    expect(diffusionVariance(p, rho)).toBeCloseTo(viaGenz, 13);
    if (sigma !== null) expect(100 * Math.sqrt(diffusionVariance(p, rho))).toBeCloseTo(sigma, 2);
    if (linearSigma !== null) expect(100 * Math.sqrt(linearVariance(p, rho))).toBeCloseTo(linearSigma, 2);
  });

  test.each([0.5, 0.25, 0.1, 0.01])("p = 0.5: Var_h = arcsin(rho) / (2 pi) at rho = %d", (rho) => {
    expect(diffusionVariance(0.5, rho)).toBeCloseTo(Math.asin(rho) / (2 * Math.PI), 14);
  });

  test.each([0.001, 0.05, 0.3, 0.5, 0.8, 0.999])(
    "p = %d: 0 at rho = 0, p(1 - p) at rho = 1, never above linear",
    (p) => {
      expect(diffusionVariance(p, 0)).toBe(0);
      expect(diffusionVariance(p, 1)).toBeCloseTo(varianceToResolution(p), 15);
      for (const rho of [0.001, 0.05, 0.2, 0.5, 0.8, 0.99]) {
        expect(diffusionVariance(p, rho)).toBeLessThanOrEqual(linearVariance(p, rho) + 1e-15);
      }
    },
  );
});
