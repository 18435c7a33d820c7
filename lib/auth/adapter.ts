import "server-only";
import type { Adapter, AdapterAccount, AdapterSession, AdapterUser, VerificationToken } from "next-auth/adapters";
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/prisma/client";

const user = { id: true, email: true, emailVerified: true, name: true, image: true } as const;
const session = { sessionToken: true, userId: true, expires: true } as const;

/** Expired links are kept a day, so the confirmation page can say "expired" rather than "unknown". */
const EXPIRED_TOKEN_GRACE_MS = 24 * 60 * 60 * 1000;

function notFound(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025";
}

/**
 * The Auth.js adapter over this app's Prisma client (opened lazily; PGlite or PostgreSQL),
 * limited to what e-mail sign-in with database sessions uses, and selecting columns explicitly.
 */
export function portalAdapter(db: () => Promise<Db>): Adapter {
  return {
    async createUser(data: AdapterUser) {
      const prisma = await db();
      return prisma.user.create({
        data: {
          email: data.email,
          emailVerified: data.emailVerified,
          name: data.name ?? null,
          image: data.image ?? null,
        },
        select: user,
      });
    },
    async getUser(id) {
      const prisma = await db();
      return prisma.user.findUnique({ where: { id }, select: user });
    },
    async getUserByEmail(email) {
      const prisma = await db();
      return prisma.user.findUnique({ where: { email }, select: user });
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const prisma = await db();
      const account = await prisma.account.findUnique({
        where: { provider_providerAccountId: { provider, providerAccountId } },
        select: { user: { select: user } },
      });
      return account?.user ?? null;
    },
    async updateUser({ id, email, emailVerified, name, image }) {
      const prisma = await db();
      return prisma.user.update({ where: { id }, data: { email, emailVerified, name, image }, select: user });
    },
    async linkAccount(account: AdapterAccount) {
      const prisma = await db();
      await prisma.account.create({
        data: {
          userId: account.userId,
          type: account.type,
          provider: account.provider,
          providerAccountId: account.providerAccountId,
        },
        select: { provider: true },
      });
    },
    async createSession(data) {
      const prisma = await db();
      return prisma.session.create({ data, select: session });
    },
    async getSessionAndUser(sessionToken) {
      const prisma = await db();
      const row = await prisma.session.findUnique({
        where: { sessionToken },
        select: { ...session, user: { select: user } },
      });
      if (!row) return null;
      const { user: owner, ...rest } = row;
      return { session: rest, user: owner };
    },
    async updateSession({ sessionToken, expires, userId }): Promise<AdapterSession | null> {
      const prisma = await db();
      try {
        return await prisma.session.update({ where: { sessionToken }, data: { expires, userId }, select: session });
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async deleteSession(sessionToken) {
      const prisma = await db();
      await prisma.session.deleteMany({ where: { sessionToken } });
    },
    async createVerificationToken(token: VerificationToken) {
      const prisma = await db();
      await prisma.verificationToken.deleteMany({
        where: { expires: { lt: new Date(Date.now() - EXPIRED_TOKEN_GRACE_MS) } },
      });
      return prisma.verificationToken.create({ data: token, select: { identifier: true, token: true, expires: true } });
    },
    /** Atomic: of two concurrent confirmations of one link, exactly one gets the row. */
    async useVerificationToken({ identifier, token }) {
      const prisma = await db();
      try {
        return await prisma.verificationToken.delete({
          where: { identifier_token: { identifier, token } },
          select: { identifier: true, token: true, expires: true },
        });
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
  };
}
