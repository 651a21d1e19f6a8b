-- readdir: dir, after, limit, plus. Returns the members of the page, each
-- followed by its inode's attributes when plus is 1.
local dir, after, limit, plus = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 2]), ARGV[A + 3] == '1'
local p, e = get_dir(dir)
if not p then return fail(e) end
local from = '-'
if after ~= '' then from = '[' .. after .. '\1' end
local page
if limit > 0 then
  page = redis.call('ZRANGEBYLEX', k_dir(dir), from, '+', 'LIMIT', 0, limit)
else
  page = redis.call('ZRANGEBYLEX', k_dir(dir), from, '+')
end
if not plus then return page end
local out = {}
for _, m in ipairs(page) do
  local zero = string.find(m, '\0', 1, true)
  local _, ino = struct.unpack('>BI8', m, zero + 1)
  out[#out + 1] = m
  out[#out + 1] = redis.call('GET', k_attr(ino)) or ''
end
return out
