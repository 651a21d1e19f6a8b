-- readdir: dir, after, limit, plus. Returns the members of the page, each
-- followed by its inode's attributes when plus is 1 (a member whose inode is
-- gone is left out, and the page filled up from the members after it).
local dir, after, limit, plus = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 2]), ARGV[A + 3] == '1'
local p, e = get_dir(dir)
if not p then return fail(e) end
local from = '-'
if after ~= '' then from = '[' .. after .. '\1' end
local out, kept = {}, 0
while true do
  local want = limit - kept
  local page
  if limit > 0 then
    page = redis.call('ZRANGEBYLEX', k_dir(dir), from, '+', 'LIMIT', 0, want)
  else
    page = redis.call('ZRANGEBYLEX', k_dir(dir), from, '+')
  end
  if not plus then return page end
  for _, m in ipairs(page) do
    local zero = string.find(m, '\0', 1, true)
    local _, ino = struct.unpack('>BI8', m, zero + 1)
    local a = redis.call('GET', k_attr(ino))
    if a then -- a member whose inode is gone is no entry
      out[#out + 1] = m
      out[#out + 1] = a
      kept = kept + 1
    end
  end
  -- Only the last page may be short: one that lost members is read on.
  if limit <= 0 or #page < want or kept >= limit then return out end
  from = '[' .. page[#page] .. '\1'
end
