-- perm.lua ports meta/perm.go (Access, MayDelete, InitAttr, ApplySetAttr)
-- and meta/setid.go (ModeAfterWrite, ModeAfterChown) to Lua so that the
-- checks run inside the same script as the change. The Go functions are the reference; perm_lua_test.go compares the two.
-- Errors are errno names.

local function in_group(c, gid)
  if c.gid == gid then return true end
  for _, g in ipairs(c.gids) do
    if g == gid then return true end
  end
  return false
end

local function access(a, c, mask)
  if mask == 0 then return nil end
  if c.uid == 0 then
    if band(mask, MAY_EXEC) ~= 0 and a.t ~= TDIR and band(a.mode, 73) == 0 then return 'EACCES' end
    return nil
  end
  local bits
  if c.uid == a.uid then
    bits = band(rshift(a.mode, 6), 7)
  elseif in_group(c, a.gid) then
    bits = band(rshift(a.mode, 3), 7)
  else
    bits = band(a.mode, 7)
  end
  if band(bits, mask) ~= mask then return 'EACCES' end
  return nil
end

local function may_delete(dir, victim, c)
  local e = access(dir, c, MAY_WRITE + MAY_EXEC)
  if e then return e end
  if band(dir.mode, 512) ~= 0 and c.uid ~= 0 and c.uid ~= dir.uid and c.uid ~= victim.uid then
    return 'EPERM'
  end
  return nil
end

-- init_attr is InitAttr with the script's clock.
local function init_attr(parent, c, t, mode, rdev)
  local a = {t = t, mode = band(mode, 4095), uid = c.uid, gid = c.gid, rdev = rdev, nlink = 1, len = 0,
    as = now_s, an = now_ns, ms = now_s, mn = now_ns, cs = now_s, cn = now_ns, parent = 0}
  if band(parent.mode, 1024) ~= 0 then
    a.gid = parent.gid
    if t == TDIR then
      a.mode = bor(a.mode, 1024)
    elseif band(a.mode, 1032) == 1032 and c.uid ~= 0 and not in_group(c, a.gid) then
      a.mode = band(a.mode, bnot(1024))
    end
  end
  if t == TDIR then
    a.nlink = 2
    a.len = 4096
  end
  return a
end

-- setgid_to_drop, mode_after_write and mode_after_chown port
-- meta/setid.go: 1024 is setgid, 2048 setuid, 8 group-exec.
local function setgid_to_drop(a, c)
  if band(a.mode, 1024) == 0 then return 0 end
  if band(a.mode, 8) ~= 0 then return 1024 end
  if c.uid ~= 0 and not in_group(c, a.gid) then return 1024 end
  return 0
end

local function mode_after_write(a, c)
  if a.t ~= TFILE or c.uid == 0 then return a.mode end
  return band(a.mode, bnot(2048 + setgid_to_drop(a, c)))
end

local function mode_after_chown(a, c)
  if a.t == TDIR then return a.mode end
  return band(a.mode, bnot(2048 + setgid_to_drop(a, c)))
end

-- apply_setattr is ApplySetAttr. set holds mode, uid, gid (numbers or
-- nil), atime and mtime ({seconds, nanoseconds} or nil), atime_now,
-- mtime_now and clear_setid (booleans).
local function apply_setattr(a, c, set)
  local root = c.uid == 0
  local owner = root or c.uid == a.uid
  if set.uid and set.uid ~= a.uid and not root then return 'EPERM' end
  if set.gid and set.gid ~= a.gid and not root and not (c.uid == a.uid and in_group(c, set.gid)) then
    return 'EPERM'
  end
  if set.mode and not owner then return 'EPERM' end
  if (set.atime or set.mtime) and not owner then return 'EPERM' end
  if (set.atime_now or set.mtime_now) and not owner then
    local e = access(a, c, MAY_WRITE)
    if e then return e end
  end
  local changed = false
  if set.clear_setid then
    local m = mode_after_write(a, c)
    if m ~= a.mode then a.mode = m; changed = true end
  end
  if set.mode then
    local m = band(set.mode, 4095)
    if not root and band(m, 1024) ~= 0 and not in_group(c, a.gid) then
      local gid = a.gid
      if set.gid then gid = set.gid end
      if not in_group(c, gid) then m = band(m, bnot(1024)) end
    end
    a.mode = m
    changed = true
  end
  if set.uid or set.gid then
    if not set.mode then a.mode = mode_after_chown(a, c) end
    if set.uid then a.uid = set.uid end
    if set.gid then a.gid = set.gid end
    changed = true
  end
  if set.atime then a.as, a.an = set.atime[1], set.atime[2]; changed = true end
  if set.atime_now then a.as, a.an = now_s, now_ns; changed = true end
  if set.mtime then a.ms, a.mn = set.mtime[1], set.mtime[2]; changed = true end
  if set.mtime_now then a.ms, a.mn = now_s, now_ns; changed = true end
  if changed then touch_c(a) end
  return nil
end

-- read_set reads a SetAttr from ARGV[i..i+7]: which (bits: 1 mode, 2 uid,
-- 4 gid, 8 atime, 16 mtime, 32 atime now, 64 mtime now, 128 clear setid),
-- mode, uid, gid, atime s, atime ns, mtime s, mtime ns.
local function read_set(i)
  local which = tonumber(ARGV[i])
  local set = {}
  if band(which, 1) ~= 0 then set.mode = tonumber(ARGV[i + 1]) end
  if band(which, 2) ~= 0 then set.uid = tonumber(ARGV[i + 2]) end
  if band(which, 4) ~= 0 then set.gid = tonumber(ARGV[i + 3]) end
  if band(which, 8) ~= 0 then set.atime = {tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5])} end
  if band(which, 16) ~= 0 then set.mtime = {tonumber(ARGV[i + 6]), tonumber(ARGV[i + 7])} end
  set.atime_now = band(which, 32) ~= 0
  set.mtime_now = band(which, 64) ~= 0
  set.clear_setid = band(which, 128) ~= 0
  return set
end

-- find_victim looks up name in directory parent for removal, with the
-- checks unlink, rmdir and a replacing rename share: search permission on
-- parent, may_delete on the entry. Returns the parent's attributes, the
-- entry and its inode's attributes, or nil and the error to fail with.
local function find_victim(parent, name)
  local p, e = get_dir(parent)
  if not p then return nil, e end
  e = access(p, cred, MAY_EXEC)
  if e then return nil, e end
  local en = find(parent, name)
  if not en then return nil, 'ENOENT' end
  local a = get_attr(en.ino)
  if not a then return nil, 'EIO entry without inode' end
  e = may_delete(p, a, cred)
  if e then return nil, e end
  return p, en, a
end
