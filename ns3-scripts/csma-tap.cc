// cavsim channel program: one CSMA bus, one ns-3 node per vehicle, each joined to the vehicle's
// host tap device by a TapBridge in UseBridge mode (thesis figure 4.2).
//
// argv contract (docs/ns3-argv-contract.md):
//   --taps=tap-a,tap-b,...  host tap devices, one per vehicle, each already a port of a bridge
//   --delay=10ms            channel propagation delay (any ns3::Time string)
//   --dataRate=100Mbps      channel data rate (any ns3::DataRate string)
//   --duration=0            seconds to run; 0 runs until SIGTERM
// stdout: "CAVSIM-READY" once every tap is attached; "CAVSIM-LAG sim_s=<t> lag_ms=<x>" each second.
#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/network-module.h"
#include "ns3/tap-bridge-module.h"

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

std::vector<std::string>
SplitCommaList(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
    {
        if (!item.empty())
        {
            items.push_back(item);
        }
    }
    return items;
}

std::chrono::steady_clock::time_point g_wallStart;

void
AnnounceReady()
{
    std::cout << "CAVSIM-READY" << std::endl;
}

// In realtime mode an event runs when the wall clock reaches its timestamp; how late it runs
// relative to the simulated clock is the lag the channel added on top of the model.
void
ReportLag()
{
    double wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_wallStart).count();
    double simS = Simulator::Now().GetSeconds();
    std::cout << "CAVSIM-LAG sim_s=" << simS << " lag_ms=" << (wallS - simS) * 1000.0 << std::endl;
    Simulator::Schedule(Seconds(1), &ReportLag);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string taps;
    std::string delay = "10ms";
    std::string dataRate = "100Mbps";
    double duration = 0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("taps", "comma-separated host tap devices, one per vehicle", taps);
    cmd.AddValue("delay", "channel propagation delay", delay);
    cmd.AddValue("dataRate", "channel data rate", dataRate);
    cmd.AddValue("duration", "seconds to run, 0 = until SIGTERM", duration);
    cmd.Parse(argc, argv);

    std::vector<std::string> tapNames = SplitCommaList(taps);
    if (tapNames.empty())
    {
        std::cerr << "csma-tap: --taps must name at least one tap device" << std::endl;
        return 2;
    }

    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));

    NodeContainer nodes;
    nodes.Create(tapNames.size());

    CsmaHelper csma;
    csma.SetChannelAttribute("DataRate", DataRateValue(DataRate(dataRate)));
    csma.SetChannelAttribute("Delay", TimeValue(Time(delay)));
    NetDeviceContainer devices = csma.Install(nodes);

    TapBridgeHelper tapBridge;
    tapBridge.SetAttribute("Mode", StringValue("UseBridge"));
    for (std::size_t i = 0; i < tapNames.size(); ++i)
    {
        tapBridge.SetAttribute("DeviceName", StringValue(tapNames[i]));
        tapBridge.Install(nodes.Get(i), devices.Get(i));
    }

    Simulator::Schedule(MilliSeconds(1), &AnnounceReady);
    Simulator::Schedule(MilliSeconds(1) + Seconds(1), &ReportLag);
    if (duration > 0)
    {
        Simulator::Stop(Seconds(duration));
    }
    g_wallStart = std::chrono::steady_clock::now(); // the realtime clock's origin, to within microseconds
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}
