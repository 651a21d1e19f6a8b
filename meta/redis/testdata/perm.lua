-- A test-only operation: runs the Lua permission rules on a case built
-- from ARGV and returns what they decided, for perm_lua_test.go.
-- ARGV[A] names the function; the attributes follow as packed records.
local fn = ARGV[A]
local function res(e, a)
  local out = {e or ''}
  if a then out[2] = pack_attr(a) end
  return out
end
if fn == 'access' then
  return res(access(unpack_attr(ARGV[A + 1]), cred, tonumber(ARGV[A + 2])))
elseif fn == 'may_delete' then
  return res(may_delete(unpack_attr(ARGV[A + 1]), unpack_attr(ARGV[A + 2]), cred))
elseif fn == 'init_attr' then
  local a = init_attr(unpack_attr(ARGV[A + 1]), cred, tonumber(ARGV[A + 2]), tonumber(ARGV[A + 3]), tonumber(ARGV[A + 4]))
  return res(nil, a)
elseif fn == 'mode_after_write' then
  return res(tostring(mode_after_write(unpack_attr(ARGV[A + 1]), cred)))
elseif fn == 'mode_after_chown' then
  return res(tostring(mode_after_chown(unpack_attr(ARGV[A + 1]), cred)))
elseif fn == 'apply_setattr' then
  local a = unpack_attr(ARGV[A + 1])
  local e = apply_setattr(a, cred, read_set(A + 2))
  return res(e, a)
end
return fail('EINVAL unknown function')
