-- Neovim's built-in LSP client (0.7) on `devcheck lsp`, headless: opens the
-- file, waits for the diagnostics, writes them to the transcript, applies
-- the fix a code action offers and the "disable" action, and writes the
-- buffer and the diagnostics after each. nvim_test.sh asserts on the
-- transcript. Env: DEVCHECK_CLI, DEVCHECK_NVIM_FILE, DEVCHECK_NVIM_OUT.
local cli = os.getenv("DEVCHECK_CLI")
local file = os.getenv("DEVCHECK_NVIM_FILE")
local out = assert(io.open(os.getenv("DEVCHECK_NVIM_OUT"), "w"))
local function say(line)
  out:write(line, "\n")
  out:flush()
end
local function finish(status)
  out:close()
  vim.cmd((status == 0 and "qall!" or "cquit! " .. status))
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = "devcheck",
  cmd = { cli, "lsp" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
})
if not client then
  say("error: the client did not start")
  return finish(1)
end
vim.lsp.buf_attach_client(buf, client)

local function dump(label)
  local diags = vim.diagnostic.get(buf)
  table.sort(diags, function(a, b) return a.lnum < b.lnum end)
  say(label .. ": " .. #diags .. " diagnostics")
  for _, d in ipairs(diags) do
    local related = ((d.user_data or {}).lsp or {}).relatedInformation or {}
    local href = (((d.user_data or {}).lsp or {}).codeDescription or {}).href or ""
    say(string.format("  %s line %d col %d severity %d: %s", d.code, d.lnum + 1, d.col + 1,
                      d.severity, d.message))
    say("    link " .. href)
    for _, r in ipairs(related) do
      say(string.format("    related line %d: %s", r.location.range.start.line + 1, r.message))
    end
  end
  return diags
end

local function wait_for(count)
  return vim.wait(15000, function() return #vim.diagnostic.get(buf) == count end, 20)
end

if not vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
  say("error: no diagnostics within 15 s")
  return finish(1)
end
dump("received")

-- The code actions on a line, from the server.
local function actions_on(line)
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  local params = vim.lsp.util.make_range_params(0, "utf-16")
  params.context = { diagnostics = {} }
  local results = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000) or {}
  local all = {}
  for _, r in pairs(results) do
    for _, a in ipairs(r.result or {}) do table.insert(all, a) end
  end
  return all
end

local function apply(line, pick)
  for _, a in ipairs(actions_on(line)) do
    say(string.format("  action on line %d: %s", line, a.title))
  end
  for _, a in ipairs(actions_on(line)) do
    if pick(a) then
      say("applying: " .. a.title)
      vim.lsp.util.apply_workspace_edit(a.edit, "utf-16")
      return true
    end
  end
  say("error: no such action on line " .. line)
  return false
end

local before = #vim.diagnostic.get(buf)
if not apply(5, function(a) return a.isPreferred end) then return finish(1) end
say("line 5 now: " .. vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1])
if not wait_for(before - 1) then
  dump("error: diagnostics after the fix")
  return finish(1)
end
dump("after the fix")
if not apply(3, function(a) return a.title:find("^Disable") ~= nil end) then return finish(1) end
say("line 3 now: " .. vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1])
if not wait_for(before - 2) then
  dump("error: diagnostics after disabling")
  return finish(1)
end
dump("after disabling")
vim.lsp.stop_client(client)
finish(0)
